// A second batch of ordinary calls, written after the rules to check they generalise beyond the first.
import type { CorpusEntry } from "./types.ts";

type Turn = ["caller" | "callee", string];
const talk = (id: string, description: string, turns: Turn[], call?: CorpusEntry["call"]): CorpusEntry => ({
  id,
  label: "legit",
  description,
  segments: turns.map(([speaker, text]) => ({ speaker, text })),
  call,
});

export const LEGIT_MORE: CorpusEntry[] = [
  talk(
    "more-mortgage-appointment",
    "Bank's mortgage adviser confirms an appointment",
    [
      ["caller", "Hi, this is Paul from Halifax calling about your mortgage appointment on Tuesday at ten."],
      ["callee", "Yes, we're still coming."],
      ["caller", "Great. Please bring photo ID and your last three payslips. There's no fee for the appointment."],
      ["callee", "Will do, thanks Paul."],
    ],
    { ani: "+441134960100", dialed: "+447700900120", destCountry: "GB" },
  ),
  talk(
    "more-card-activation",
    "Customer activates a new card through the bank's automated line",
    [
      ["callee", "Welcome to card activation. Please enter the last four digits of your new card, followed by the hash key."],
      ["caller", "Okay."],
      ["callee", "Thank you. Your card is now active. You can set your PIN at any cash machine."],
    ],
    { dtmf: [1, 2, 3, 4].map((d, i) => ({ t: 8 + i, digit: String(d), channel: "caller" })) },
  ),
  talk("more-netflix-password", "Teenager asks a parent for the Netflix password", [
    ["caller", "Dad, what's the Netflix password? It logged me out."],
    ["callee", "It's on the note on the fridge. Don't change it this time."],
    ["caller", "Got it, thanks."],
  ]),
  talk("more-boss-invoice", "Manager asks a colleague to pay a supplier invoice", [
    ["caller", "Hi Tom, it's Helen. Could you pay the Acme Supplies invoice today? It's due and they've chased twice."],
    ["callee", "Sure, is it the one in the shared folder?"],
    ["caller", "Yes, the 2,300 one. Use the bank details we've always used, nothing's changed. Thanks!"],
  ]),
  talk("more-grandson-thanks", "Grandson thanks his grandmother for birthday money", [
    ["caller", "Hi Grandma, it's me, Jack! Thank you so much for the birthday money."],
    ["callee", "You're welcome, darling. Did you buy anything nice?"],
    ["caller", "I'm saving it for driving lessons. I'll come and visit next weekend."],
  ]),
  talk(
    "more-insurer-claim",
    "Insurer updates a customer on an accident claim",
    [
      ["caller", "Hello, it's Dana from Aviva claims, about your car accident claim."],
      ["callee", "Hi, any news?"],
      ["caller", "Yes, the repair's approved. We'll pay the garage directly, you just pay the 250 pound excess when you collect the car."],
      ["callee", "That's a relief, thank you."],
    ],
    { ani: "+441603960000", dialed: "+447700900130", destCountry: "GB" },
  ),
  talk("more-bitcoin-chat", "Friends talk about a bitcoin loss", [
    ["caller", "Remember that bitcoin I bought last year? It's down by half."],
    ["callee", "Ouch. Are you selling?"],
    ["caller", "No, I'll just leave it. It was only a couple of hundred, lesson learned."],
  ]),
  talk("more-install-zoom", "Son asks his father to install Zoom for a video call", [
    ["caller", "Dad, can you download the Zoom app before Sunday? Then we can video call with the kids."],
    ["callee", "Where do I get it?"],
    ["caller", "From the App Store on your iPad. I'll send you the meeting link by text on Sunday morning."],
  ]),
  talk(
    "more-vet-reminder",
    "Vet reminds an owner about a vaccination",
    [
      ["caller", "Hi, this is Oakwood Vets. Bella is due for her booster vaccination this month."],
      ["callee", "Oh thanks, can we book for Saturday?"],
      ["caller", "Saturday at 11 is free. It's 52 pounds, payable on the day."],
    ],
    { ani: "+441214960000", dialed: "+447700900140", destCountry: "GB" },
  ),
  talk(
    "more-engineer-visit",
    "Energy company confirms a meter engineer visit",
    [
      ["caller", "Hello, this is British Gas, confirming your smart meter installation tomorrow between 8 and 12."],
      ["callee", "That's fine, I'll be in."],
      ["caller", "Please make sure the engineer can get to the meter. The installation is free of charge."],
    ],
    { ani: "+443331234567", dialed: "+447700900150", destCountry: "GB" },
  ),
  talk(
    "more-hmrc-helpline",
    "Taxpayer rings the HMRC helpline about their tax code",
    [
      ["callee", "Welcome to HMRC, you're speaking to Adam. For security, can I take your national insurance number and date of birth?"],
      ["caller", "Yes, it's QQ 12 34 56 C and the 4th of July 1975."],
      ["callee", "Thank you. How can I help?"],
      ["caller", "I think my tax code is wrong since I changed jobs."],
      ["callee", "I can see that. I'll update it now and you'll get a refund through your payslip next month."],
    ],
    { ani: "+447700900160", dialed: "+443000200300", destCountry: "GB" },
  ),
  talk("more-team-phone-code", "Colleague asks for a login code sent to the shared team phone", [
    [
      "caller",
      "Hi, it's Lena. I'm logging into the supplier portal, it just sent a verification code to " +
        "the team phone on your desk. Can you read me the code?",
    ],
    ["callee", "Sure, it says 8 3 1 4 4 0."],
    ["caller", "Thanks, I'm in."],
  ]),
];
