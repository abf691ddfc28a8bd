// Ordinary business calls that mention banks, payments, codes, refunds, deliveries and computers.
import type { CorpusEntry } from "./types.ts";

type Turn = ["caller" | "callee", string];
const talk = (id: string, description: string, turns: Turn[], call?: CorpusEntry["call"]): CorpusEntry => ({
  id,
  label: "legit",
  description,
  segments: turns.map(([speaker, text]) => ({ speaker, text })),
  call,
});

export const LEGIT_BUSINESS: CorpusEntry[] = [
  talk("biz-customer-calls-bank", "Customer rings their bank about a charge; the agent verifies with a code", [
    ["callee", "Thank you for calling Chase, this is Monica. How can I help you today?"],
    ["caller", "Hi, I think there's a charge on my credit card that I don't recognise, from a hotel in Denver."],
    [
      "callee",
      "I can help with that. First I need to verify your identity. Can you confirm your date of " +
        "birth and the last four digits of your card?",
    ],
    ["caller", "Sure, March 3rd 1980, and it ends in 4417."],
    ["callee", "Thank you. I've just sent a one-time code to the phone number on file. Can you read me that code?"],
    ["caller", "It's 5 5 1 2 0 9."],
    [
      "callee",
      "Perfect, you're verified. I can see the charge of 312 dollars. I'll block this card and " +
        "send you a new one, and we'll open a dispute.",
    ],
    ["caller", "Great, thank you. How long will the new card take?"],
    ["callee", "Three to five business days. Is there anything else?"],
  ]),
  talk("biz-dentist-confirm", "Dental office confirms an appointment and mentions the deposit", [
    ["caller", "Hi, this is Sarah from Bright Smile Dental. I'm calling to confirm your cleaning appointment tomorrow at 2:30."],
    ["callee", "Yes, I'll be there."],
    [
      "caller",
      "Great. Just a reminder that there's a 25 dollar late cancellation fee if you cancel within " +
        "24 hours, and you can pay your copay at reception.",
    ],
    ["callee", "No problem. Do I need to bring my insurance card?"],
    ["caller", "Yes please, and the door code for the parking garage is 1 2 3 4. See you tomorrow!"],
  ]),
  talk(
    "biz-delivery-slot",
    "Courier arranges a delivery slot and a door code",
    [
      ["caller", "Hi, this is Tom from DHL, I've got a parcel for you, nothing to pay. Will someone be home between two and four?"],
      ["callee", "Yes, I'm working from home today."],
      ["caller", "Great. Is there a code for the building door?"],
      ["callee", "It's 4 5 0 6, then flat 12 on the third floor."],
      ["caller", "Perfect, see you this afternoon."],
    ],
    { ani: "+447700900100", dialed: "+447700900200", destCountry: "GB" },
  ),
  talk("biz-real-fraud-alert", "The bank's genuine fraud alert: asks yes or no, never for codes", [
    [
      "caller",
      "Hello, this is Jenna from the Wells Fargo fraud prevention team. We noticed an unusual " +
        "transaction on your card and put a temporary hold on it.",
    ],
    ["callee", "Oh, okay. What transaction?"],
    ["caller", "A purchase of 84 dollars at an electronics store online about an hour ago. Was that you?"],
    ["callee", "Yes, that was me, I bought headphones."],
    [
      "caller",
      "Thank you, I'll remove the hold now. Remember, we will never ask you for your PIN or for a " +
        "code we send you. If you're ever unsure, hang up and call the number on the back of your " +
        "card.",
    ],
    ["callee", "Good to know, thanks."],
  ]),
  talk("biz-retail-refund", "Customer rings a shop about the refund for a returned jacket", [
    ["caller", "Hi, I returned a jacket to your store last week and I haven't seen the refund yet."],
    ["callee", "I'm sorry about that. Can I have your order number?"],
    ["caller", "It's 8 8 4 1 2 7."],
    [
      "callee",
      "Thanks. I can see the refund of 89 dollars was issued on Monday to the card you paid with. " +
        "It can take five to seven business days to show.",
    ],
    ["caller", "Okay, I'll wait a few more days then."],
  ]),
  talk("biz-it-helpdesk", "Employee rings the company IT helpdesk, who connect remotely", [
    ["caller", "Hi, it's Priya from accounts. My laptop keeps freezing when I open Excel."],
    [
      "callee",
      "Hi Priya, IT helpdesk, this is Tom. Let me take a look. I'll start a remote session with " +
        "Quick Assist, you'll see a prompt, just click allow.",
    ],
    ["caller", "Okay, I clicked allow."],
    [
      "callee",
      "Great, I can see your screen. There's an update that didn't install properly. I'll download the latest version and restart Excel.",
    ],
    ["caller", "Thanks. Do you need my password?"],
    ["callee", "No, never give your password to anyone, including us. I have what I need."],
  ]),
  talk(
    "biz-accountant-refund",
    "Accountant tells a client about their tax refund",
    [
      ["caller", "Hi Mr Jones, it's Priyanka from Patel and Co accountants. Good news, HMRC has accepted your tax return."],
      ["callee", "Oh great. Do I owe anything?"],
      [
        "caller",
        "No, actually you're due a refund of 340 pounds. It'll be paid straight into the bank " +
          "account on your return, usually within a couple of weeks.",
      ],
      ["callee", "Lovely. Do you need anything from me?"],
      ["caller", "Nothing at all. Our invoice will come by email, and you can pay by bank transfer whenever suits you."],
    ],
    { ani: "+441614960000", dialed: "+447700900300", destCountry: "GB" },
  ),
  talk(
    "biz-insurance-renewal",
    "Broker calls about a home insurance renewal",
    [
      [
        "caller",
        "Hello, it's Mark from Lakeside Insurance Brokers. Your home insurance policy renews next month and I've found you a better price.",
      ],
      ["callee", "Oh, what's the difference?"],
      ["caller", "It's 38 pounds cheaper for the same cover. I'll email the quote over and you can decide, there's no obligation."],
      ["callee", "Okay, send it across and I'll have a look at the weekend."],
    ],
    { ani: "+441134960000", dialed: "+447700900301", destCountry: "GB" },
  ),
  talk(
    "biz-appointment-reminder",
    "Automated appointment reminder with press 1 to confirm",
    [
      ["callee", "Hello?"],
      [
        "caller",
        "This is an automated reminder from Riverside Family Clinic. You have an appointment with " +
          "Doctor Alvarez on Thursday at 10 a.m. Press 1 to confirm, or press 2 to reschedule.",
      ],
    ],
    { dtmf: [{ t: 14.2, digit: "1", channel: "callee" }] },
  ),
  talk("biz-pharmacy-ready", "Pharmacy says a prescription is ready", [
    ["caller", "Hi, this is Greenway Pharmacy calling for Ellen. Your prescription is ready for pickup."],
    ["callee", "Oh thank you. Is it covered by my insurance?"],
    ["caller", "Yes, your copay is 10 dollars, you can pay when you pick it up. We're open until 9 tonight."],
  ]),
  talk(
    "biz-plumber-invoice",
    "Plumber agrees a job and payment by bank transfer",
    [
      ["caller", "Hi, it's Dave the plumber. I had a look at the photos of your boiler, I can come Thursday morning."],
      ["callee", "Brilliant. How much roughly?"],
      [
        "caller",
        "Should be around 180 for the part and labour. I'll send an invoice after and you can pay by bank transfer, my details are on it.",
      ],
      ["callee", "Perfect, see you Thursday."],
    ],
    { ani: "+447700900555", dialed: "+447700900556", destCountry: "GB" },
  ),
  talk(
    "biz-internet-outage",
    "Customer rings their internet provider about an outage",
    [
      ["caller", "Hi, my internet has been down since this morning. The router light is flashing red."],
      ["callee", "Sorry about that. Can I have the account holder's name and the postcode?"],
      ["caller", "Anna Kowalski, BS3 4DT."],
      [
        "callee",
        "Thanks Anna. There's a fault in your area, engineers are working on it and it should be " +
          "fixed by 6 tonight. I'll add a credit to your next bill.",
      ],
    ],
    { ani: "+447700900600", dialed: "+443301234567", destCountry: "GB" },
  ),
  talk("biz-laptop-repair", "Customer rings a repair shop about a virus on their laptop", [
    ["caller", "Hi, I think my laptop has a virus, pop-ups keep appearing. Can you have a look at it?"],
    ["callee", "Sure, bring it in. A check-up is 40 dollars, and if it needs a clean-up it's 80 in total."],
    ["caller", "Okay. Should I back up my files first?"],
    ["callee", "If you can, yes. Don't worry about your passwords, we don't need them, just leave it logged out."],
  ]),
  talk("biz-car-service", "Dealership says the car is ready, covered by warranty", [
    ["caller", "Hi, it's Jim from Main Street Toyota. Your car is ready to collect."],
    ["callee", "Great, what was wrong with it?"],
    ["caller", "A faulty sensor. Good news, your factory warranty covered the whole repair, so there's nothing to pay."],
    ["callee", "Fantastic, I'll come by after work."],
  ]),
  talk(
    "biz-police-bike",
    "Local police follow up on a stolen bike report",
    [
      ["caller", "Hello, this is PC Sarah Jones from Avon and Somerset police, about the bike you reported stolen last week."],
      ["callee", "Oh yes, any news?"],
      [
        "caller",
        "We've recovered a bike that matches the description. Could you come to the station with proof of purchase to identify it?",
      ],
      ["callee", "Of course. Do I need to pay anything?"],
      ["caller", "No, nothing at all. Just bring the receipt and your crime reference number."],
    ],
    { ani: "+441179460000", dialed: "+447700900777", destCountry: "GB" },
  ),
  talk("biz-hotel-booking", "Hotel confirms a booking with the card on file", [
    ["caller", "Good afternoon, this is the Harbour Hotel reservations desk calling about your booking for the 14th."],
    ["callee", "Yes, is everything okay?"],
    [
      "caller",
      "All fine. We just wanted to confirm two nights in a double room. The card ending 8812 will be charged at check-in, not before.",
    ],
    ["callee", "That's right. Is parking included?"],
    ["caller", "Yes, and breakfast is served from 7. We look forward to seeing you."],
  ]),
  talk(
    "biz-travel-balance",
    "Travel agent reminds a customer the holiday balance is due",
    [
      ["caller", "Hi, it's Lucy from Sunway Travel. Just a reminder that the balance for your Greece holiday is due by Friday."],
      ["callee", "Thanks, I'd forgotten. How much is left?"],
      ["caller", "1,240 pounds. You can pay online through your booking page, or pop into the branch."],
      ["callee", "I'll do it online tonight."],
    ],
    { ani: "+441224960000", dialed: "+447700900888", destCountry: "GB" },
  ),
  talk("biz-gym-cancel", "Member cancels a gym membership", [
    ["caller", "Hi, I'd like to cancel my membership please, I'm moving to another city."],
    ["callee", "Sorry to see you go. Your membership renews on the first and you'll be charged one last time, then it ends."],
    ["caller", "Can I get that last payment back if I don't use it?"],
    ["callee", "Unfortunately the notice period is one month, but you can keep using the gym until the end of next month."],
  ]),
  talk("biz-amazon-missing", "Customer rings Amazon about a missing parcel", [
    ["callee", "Thank you for calling Amazon customer service. How can I help?"],
    ["caller", "Hi, my package says delivered but it's not here. The order number ends in 3317."],
    ["callee", "I'm sorry about that. I can send a replacement or give you a refund. Which would you prefer?"],
    ["caller", "A replacement please."],
    ["callee", "Done, it'll arrive on Wednesday. You'll get an email confirmation."],
  ]),
  talk("biz-recruiter", "Recruiter invites a candidate to interview", [
    ["caller", "Hi Sam, it's Olivia from Brightpath Recruitment. The bank you applied to would like to interview you next Tuesday."],
    ["callee", "That's great news! What time?"],
    ["caller", "Eleven in the morning at their head office. It's for the payments analyst role, so brush up on your SQL."],
    ["callee", "Will do. Thanks so much."],
  ]),
  talk("biz-school-office", "School office calls a parent about a sick child", [
    ["caller", "Hello, this is Mrs Green from the school office. Ella has a temperature, could someone collect her?"],
    ["callee", "Oh no, I'll be there in twenty minutes."],
    ["caller", "Thank you. Also, her lunch account is a little low, you can top it up on the parent app when you get a moment."],
  ]),
  talk(
    "biz-landlord-rent",
    "Landlord reminds a tenant about rent and a repair",
    [
      ["caller", "Hi Ben, it's Carol, your landlord. Just a quick one, the rent is due on Friday, same account as usual."],
      ["callee", "No problem, I'll set up the transfer tonight."],
      ["caller", "Thanks. And the electrician is coming Monday to fix the hallway light, is that okay?"],
      ["callee", "Monday's fine."],
    ],
    { ani: "+447700900901", dialed: "+447700900902", destCountry: "GB" },
  ),
];
