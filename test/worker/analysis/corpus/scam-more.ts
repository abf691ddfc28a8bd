// A second batch of scams, written after the rules to check they generalise beyond the first.
import type { CorpusEntry } from "./types.ts";

type Turn = ["caller" | "callee", string];
const talk = (id: string, description: string, turns: Turn[], call?: CorpusEntry["call"]): CorpusEntry => ({
  id,
  label: "scam",
  description,
  segments: turns.map(([speaker, text]) => ({ speaker, text })),
  call,
});

export const SCAM_MORE: CorpusEntry[] = [
  talk("more-visa-cvv", "Visa security wants expiry and CVV to 'reverse' a charge", [
    ["caller", "Good evening, I'm calling from Visa security. We've flagged a payment of 640 dollars to an overseas airline on your card."],
    ["callee", "That wasn't me."],
    ["caller", "Okay, I can reverse it tonight. I'll just need the expiration date and the CVV so the system knows it's your card."],
    ["callee", "The CVV is the three numbers on the back?"],
    ["caller", "That's right. Please be quick, the reversal window closes in fifteen minutes."],
  ]),
  talk("more-windows-eventviewer", "Windows service centre: Event Viewer, licence renewal by card", [
    [
      "caller",
      "Hello sir, I am calling from the Windows service centre. Your IP address is sending viruses to other computers on the internet.",
    ],
    ["callee", "Which computer do you mean?"],
    ["caller", "The one in your house, sir. Please open the Event Viewer and tell me how many red errors you are seeing."],
    ["callee", "There are lots of them."],
    [
      "caller",
      "Yes, these are from the hackers. Your Windows licence has expired, that's why. To renew " +
        "the protection it is 199 dollars, you can pay by card now.",
    ],
  ]),
  talk("more-check-overpayment", "Fake job: deposit a cheque and send back the extra in Bitcoin", [
    ["caller", "Hi Jessica, this is Brian from Horizon Logistics, congratulations on getting the remote assistant job."],
    ["callee", "Thank you! When do I start?"],
    [
      "caller",
      "Today. We've mailed you a check for 2,800 dollars for your equipment. Deposit it, keep 400 " +
        "as your first week's pay, and send the rest to our equipment vendor.",
    ],
    ["callee", "How do I send it to them?"],
    [
      "caller",
      "They only accept Bitcoin. There's a Bitcoin ATM at the gas station near you, I'll text you " +
        "the wallet address. Please do it today before the check clears.",
    ],
  ]),
  talk("more-prime-renewal", "Amazon Prime auto-renewal robocall", [
    ["callee", "Hello?"],
    [
      "caller",
      "This is a courtesy call from Amazon Prime. Your membership will be auto-renewed today for " +
        "139 dollars. If you did not authorise this charge, press 1 to speak to a customer support " +
        "agent and get a refund.",
    ],
  ]),
  talk("more-doj-identity", "Department of Justice robocall about identity theft", [
    ["callee", "Hello?"],
    [
      "caller",
      "This call is from the Department of Justice. Your identity has been compromised and used " +
        "in criminal activity. A case has been filed against you. Press 1 immediately to talk to an " +
        "investigating officer or you will be taken into custody.",
    ],
  ]),
  talk("more-virtual-kidnap", "Virtual kidnapping demanding a wire transfer", [
    ["caller", "Listen carefully. We have your daughter. She's safe for now."],
    ["callee", "What? Who is this? Emily?"],
    [
      "caller",
      "If you want to see her again, you will wire 5,000 dollars through Western Union in the " +
        "next hour. Do not call the police and don't tell anyone or she gets hurt.",
    ],
    ["callee", "Please, don't hurt her. I'll get the money."],
  ]),
  talk("more-bofa-app", "Bank of America impersonator sends a 'secure' app", [
    [
      "caller",
      "Hi, this is Kevin with Bank of America's security department. Someone tried to log into your online banking from a new device.",
    ],
    ["callee", "Oh, that's worrying."],
    [
      "caller",
      "I've blocked it for now. To secure your account I'm texting you a link. Please download " +
        "the app and log in with your username and password so we can verify you.",
    ],
    ["callee", "Okay, I'm downloading it."],
    ["caller", "Good. When you get a code from us, read it to me. Don't mention this to the branch, we have an internal investigation."],
  ]),
  talk(
    "more-energy-rebate",
    "Government energy rebate needing bank details",
    [
      [
        "caller",
        "Hello, I'm calling on behalf of the government's energy support scheme. You're entitled to " +
          "an energy rebate of 400 pounds this winter.",
      ],
      ["callee", "Oh, I hadn't heard about that."],
      [
        "caller",
        "It's automatic, but we need to verify your details to pay it in. Can you give me your bank " +
          "account number and sort code, and the long number on your debit card?",
      ],
      ["callee", "Why do you need the card number?"],
      ["caller", "It's just for identity verification. The offer ends today, so I need them now."],
    ],
    { ani: "+443001234567", dialed: "+447700900999", destCountry: "GB" },
  ),
  talk("more-fedex-customs-police", "Courier and police combination: illegal parcel", [
    ["caller", "This is FedEx. A package in your name going to China was seized. It contains fake passports and drugs."],
    ["callee", "I didn't send anything."],
    ["caller", "Then your identity was stolen. I'll transfer you to the police. Officer, go ahead."],
    [
      "caller",
      "This is officer Lee. You are a suspect in a money laundering case. To prove your innocence " +
        "you must move your savings to a supervised account we control until the investigation " +
        "ends. Do not tell your bank.",
    ],
  ]),
  talk("more-treasury-itunes", "Treasury agent wants iTunes cards", [
    ["caller", "This is agent Carter from the US Treasury. There's a federal lien on your property for unpaid taxes."],
    ["callee", "I don't understand, I paid my taxes."],
    [
      "caller",
      "Ma'am, the IRS has records showing 3,200 dollars outstanding. If you don't pay it today, " +
        "the sheriff's office will arrest you this evening.",
    ],
    ["callee", "How can I pay?"],
    ["caller", "Go to Walgreens and purchase iTunes cards for the full amount. Stay on the phone with me while you do it."],
  ]),
  talk("more-recovery-scam", "Crypto recovery service wants an upfront fee", [
    [
      "caller",
      "Hello, my name is Robert Klein from Global Asset Recovery. Our records show you lost money " +
        "to a crypto investment platform last year.",
    ],
    ["callee", "Yes, I lost nearly 20,000."],
    [
      "caller",
      "We've traced the funds and can recover them for you. There's just a legal release fee of " +
        "1,500 dollars to unlock your funds, payable in USDT.",
    ],
    ["callee", "I don't know, I've been burned before."],
    ["caller", "I understand, but this is a limited time, the court order expires on Friday."],
  ]),
  talk("more-carrier-port", "Carrier impersonator ports the number with the PIN", [
    [
      "caller",
      "Hi, this is Jordan from Verizon. We're upgrading your account to our new loyalty plan, it will save you 30 dollars a month.",
    ],
    ["callee", "Sounds good."],
    ["caller", "I just need to confirm the account PIN and the verification code we're texting you now."],
    ["callee", "The PIN is 4471, and the code is 209 331."],
  ]),
];
