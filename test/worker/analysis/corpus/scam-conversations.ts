// Two-sided scams: the caller builds trust before the ask, the callee answers, hesitates, complies.
import type { CorpusEntry } from "./types.ts";

type Turn = ["caller" | "callee", string];
const talk = (id: string, description: string, turns: Turn[], call?: CorpusEntry["call"]): CorpusEntry => ({
  id,
  label: "scam",
  description,
  segments: turns.map(([speaker, text]) => ({ speaker, text })),
  call,
});

export const SCAM_CONVERSATIONS: CorpusEntry[] = [
  talk("conv-microsoft-support", "Microsoft tech support: errors, AnyDesk, gift-card fee", [
    [
      "caller",
      "Hello, am I speaking with the main user of the computer? My name is Kevin and I'm calling from Microsoft technical department.",
    ],
    ["callee", "Yes, that's me. What is this about?"],
    [
      "caller",
      "Madam, we have been getting error reports from your computer. Your computer is infected " +
        "with a dangerous virus and hackers can see your files.",
    ],
    ["callee", "Oh no. I did notice it was slow."],
    ["caller", "Don't worry, I will fix it for you. Please go to your computer and press the Windows key and the R key together."],
    ["callee", "Okay, a little box opened."],
    ["caller", "Now type in www dot anydesk dot com and download the application. Then read me the nine digit number on the screen."],
    ["callee", "It says 451 229 870."],
    ["caller", "Very good. I am now connected. The security license costs 299 dollars. You can pay with Google Play cards from the store."],
    ["callee", "Gift cards? That seems strange."],
    ["caller", "It is our fastest payment method, madam. Please don't turn off the computer and don't hang up."],
  ]),
  talk("conv-refund-overpaid", "Refund scam: subscription renewal, remote access, overpaid refund", [
    [
      "caller",
      "Hi, this is David from the billing department. Your Norton protection subscription was " +
        "renewed today and you were charged 399 dollars.",
    ],
    ["callee", "What? I never renewed anything."],
    ["caller", "No problem, sir, we can cancel it and give you a full refund. To process the refund I need to connect to your computer."],
    ["callee", "Okay, what do I do?"],
    [
      "caller",
      "Please open your browser and install the support program I'm sending. Then log into your " +
        "online banking so the refund can be deposited.",
    ],
    ["callee", "I'm logged in now."],
    ["caller", "Oh no, sir. I typed an extra zero. We refunded 3,990 dollars instead of 399. I could lose my job."],
    ["callee", "I see the money there. What should I do?"],
    [
      "caller",
      "You need to send back the difference. The bank won't allow a reversal, so please buy " +
        "Target gift cards for 3,500 and read me the numbers.",
    ],
    ["callee", "All right, I'll go to the store."],
    ["caller", "And please don't tell the cashier what they are for. Just say it's a present for your grandchildren."],
  ]),
  talk(
    "conv-barclays-safe-account",
    "Bank security team moves savings to a 'safe account'",
    [
      ["caller", "Good afternoon, this is Emma from the fraud team at Barclays. Am I speaking with Mr Hughes?"],
      ["callee", "Yes, speaking."],
      [
        "caller",
        "We've detected some suspicious payments on your account this morning, two transfers to an online retailer. Did you make those?",
      ],
      ["callee", "No, I didn't make any payments today."],
      [
        "caller",
        "I thought not. I'm afraid someone has access to your account, and it may be someone inside " +
          "your branch, so it's important you don't discuss this with the branch staff.",
      ],
      ["callee", "Goodness. What do I need to do?"],
      [
        "caller",
        "To protect your savings we'll move your money to a safe account in your name while we " +
          "investigate. I'll give you the sort code and account number now.",
      ],
      ["callee", "Shouldn't I call the bank myself?"],
      [
        "caller",
        "There's no time for that, the fraudsters are active right now. Please make the transfer " +
          "within the next ten minutes and stay on the line.",
      ],
    ],
    { ani: "+443457345345", dialed: "+447700900777", destCountry: "GB" },
  ),
  talk("conv-chase-otp", "Chase fraud department harvests the one-time code", [
    ["caller", "Hi, this is Mark calling from the Chase fraud prevention department. Is this Linda?"],
    ["callee", "Yes it is."],
    [
      "caller",
      "Linda, there is an unauthorized charge of 1,250 dollars on your Chase debit card at a Walmart in Florida. Did you authorize that?",
    ],
    ["callee", "No! I'm in Ohio."],
    [
      "caller",
      "Okay, I'm going to cancel it for you right now. To confirm you're the cardholder, I'm sending a verification code to your phone.",
    ],
    ["callee", "Okay, I got a text."],
    [
      "caller",
      "Great, please read me the code so I can stop the transaction. Don't worry about the " +
        "message saying not to share it, that's just automatic.",
    ],
    ["callee", "It's 4 8 2 9 1 7."],
    [
      "caller",
      "Thank you. The charge is cancelled. For security, please don't tell anyone about this investigation for the next 48 hours.",
    ],
  ]),
  talk(
    "conv-cra-bitcoin",
    "Canada Revenue Agency demands back taxes at a Bitcoin ATM",
    [
      ["caller", "This is Officer Daniel Brooks with the Canada Revenue Agency. I'm calling about your tax returns from 2019 to 2022."],
      ["callee", "Is something wrong?"],
      [
        "caller",
        "Yes ma'am. There are discrepancies and you owe 4,800 dollars. A warrant for your arrest " +
          "will be issued today unless the amount is settled.",
      ],
      ["callee", "I always file on time. Can I talk to my accountant?"],
      [
        "caller",
        "You cannot contact anyone about this case, it is a confidential investigation. If you hang " +
          "up, the police will be at your door within the hour.",
      ],
      ["callee", "Okay, okay. How do I pay?"],
      ["caller", "Go to the nearest Bitcoin ATM and deposit the cash. I will give you a QR code with our government wallet address."],
      ["callee", "A Bitcoin machine? For taxes?"],
      ["caller", "It is the secure federal payment system. You must pay immediately."],
    ],
    { ani: "+16135550143", dialed: "+14165550188", destCountry: "CA" },
  ),
  talk(
    "conv-police-courier",
    "Police impersonation: courier collects the card and PIN",
    [
      [
        "caller",
        "Hello, this is Detective Constable James Walker from the Metropolitan Police. We've " +
          "arrested a man using your bank card in central London.",
      ],
      ["callee", "My card? It's in my purse."],
      ["caller", "He has a cloned copy. We believe staff at your bank are involved, so you mustn't tell the bank about this call."],
      ["callee", "Oh dear. What do you need from me?"],
      [
        "caller",
        "We need your card as evidence. A police courier will come to your house this afternoon to " +
          "collect your card. Please put it in an envelope.",
      ],
      ["callee", "All right."],
      ["caller", "And so we can freeze it properly, please tell me your PIN number now."],
      ["callee", "It's the year I was born."],
    ],
    { ani: "+442079461234", dialed: "+447700900123", destCountry: "GB" },
  ),
  talk("conv-crypto-investment", "Crypto investment manager pushes a bigger deposit", [
    ["caller", "Hi John, it's Sophie, your account manager at Apex Capital. How are you today?"],
    ["callee", "Good, thanks. I saw my dashboard, it's up a lot."],
    [
      "caller",
      "Yes! Your 250 dollar deposit has already grown to 1,900. Our trading bot makes around 8 percent a week, and our clients never lose.",
    ],
    ["callee", "That's amazing. Can I take some of it out?"],
    [
      "caller",
      "Of course, but first you need to upgrade to a gold account. With a deposit of 10,000 your " +
        "returns are guaranteed returns of 40 percent a month.",
    ],
    ["callee", "That's a lot of money for me."],
    ["caller", "I understand, but this offer closes tonight. You can transfer it in USDT to the wallet address I sent you on WhatsApp."],
    ["callee", "And then I can withdraw?"],
    ["caller", "Yes, after you pay the 15 percent withdrawal fee the funds are released to you."],
  ]),
  talk("conv-grandparent-bail", "Grandparent scam: arrested grandson needs bail in gift cards", [
    ["caller", "Grandma? It's me. I'm in trouble."],
    ["callee", "Tommy? Is that you? You sound different."],
    ["caller", "I have a cold. I was in a car accident and the police arrested me. I need 3,000 dollars for bail."],
    ["callee", "Oh my goodness. Are you hurt?"],
    ["caller", "I'm okay. Please don't tell Mom and Dad, they'll be so angry. My lawyer will call you with the details."],
    ["callee", "All right, sweetheart."],
    [
      "caller",
      "He said the court only takes payment in gift cards right now. Can you get some at the " +
        "pharmacy and read the numbers on the back to him?",
    ],
    ["callee", "I'll go right away."],
  ]),
  talk("conv-tmobile-sim", "Carrier impersonation: SIM upgrade and the code", [
    ["caller", "Hi, this is Alex calling from T-Mobile customer care. We're upgrading your SIM card to our new 5G network at no cost."],
    ["callee", "Oh, okay. Do I need to do anything?"],
    ["caller", "Just a quick verification. You'll receive a six digit code by text in a moment. Can you tell me the code when it arrives?"],
    ["callee", "It says do not share this code with anyone."],
    [
      "caller",
      "That's standard. I'm with T-Mobile, so it's fine to give it to me. Your service will be " +
        "disconnected tonight if we can't complete the upgrade.",
    ],
    ["callee", "Okay, it's 7 3 1 0 5 5."],
  ]),
  talk("conv-amazon-screen", "Amazon impersonation: suspicious order, remote screen share", [
    [
      "caller",
      "Hello, I'm calling from Amazon security. There's an order of a MacBook for 1,499 dollars " +
        "on your Amazon account shipping to another state.",
    ],
    ["callee", "I didn't order that."],
    ["caller", "I thought so. Somebody has hacked your account. To cancel it, I need to access your computer and remove the hacker."],
    ["callee", "How does that work?"],
    ["caller", "Please download the app called TeamViewer and tell me the ID and password you see."],
    ["callee", "I'm not very good with computers."],
    ["caller", "That's fine, I will guide you. This is urgent, the hacker is still inside your account. Please hurry."],
  ]),
  talk(
    "conv-dhl-customs",
    "Courier customs fee taken by card over the phone",
    [
      ["caller", "Hello, this is Robert from DHL Express. We have a parcel for you from the United States that is being held at customs."],
      ["callee", "Really? I wasn't expecting anything."],
      ["caller", "It looks like a gift. Before we can release it, there's a customs clearance fee of 48 pounds that has to be paid today."],
      ["callee", "Oh. How do I pay it?"],
      ["caller", "I can take it over the phone. Can I have the long card number and the expiry date, and the three digits on the back?"],
      ["callee", "Let me find my card."],
    ],
    { ani: "+441234567890", dialed: "+447700900222", destCountry: "GB" },
  ),
  talk("conv-lottery-fee", "Lottery win with a fee paid by prepaid cards", [
    [
      "caller",
      "Hello, is this Mrs Patel? My name is Gary Simmons from the Publishers Clearing House prize " +
        "patrol. Congratulations, you have won 2.5 million dollars and a new Mercedes.",
    ],
    ["callee", "Really? I don't remember entering."],
    [
      "caller",
      "Your entry was automatically selected. Before we deliver the prize, federal law requires " +
        "you to pay the taxes and the processing fee of 1,999 dollars.",
    ],
    ["callee", "Can't you take it from the winnings?"],
    [
      "caller",
      "Unfortunately no, it has to be paid separately. You can purchase Green Dot cards at any " +
        "store. And please keep this confidential until the presentation, it's a surprise.",
    ],
  ]),
  talk("conv-coned-disconnect", "Utility company threatens disconnection, wants Zelle", [
    ["caller", "Good morning, this is Maria from Con Edison collections. Your account is three months past due."],
    ["callee", "That can't be right, I pay every month."],
    [
      "caller",
      "I'm looking at it now, there's an outstanding balance of 612 dollars. A technician is on " +
        "the way to disconnect your power within the hour.",
    ],
    ["callee", "Please don't, I have a restaurant full of customers!"],
    [
      "caller",
      "I can stop the technician if you make a payment right now. We accept Zelle or a prepaid card. What's your preferred method?",
    ],
    ["callee", "I can do Zelle."],
  ]),
  talk("conv-apple-icloud", "Apple iCloud hacked, screen share, Apple gift cards", [
    [
      "caller",
      "Hi, this is Jason from Apple Support. We noticed that your iCloud has been hacked and your photos are being accessed from Nigeria.",
    ],
    ["callee", "Oh no. What should I do?"],
    [
      "caller",
      "I need you to share your screen with me so I can secure your Apple ID. Please install the remote support app I'm texting you.",
    ],
    ["callee", "Okay, it's installing."],
    [
      "caller",
      "Good. Now, to reset the security, you will need to purchase two Apple gift cards of 500 " +
        "dollars each. Don't tell anyone at the store why, the hackers may be watching.",
    ],
  ]),
  talk("conv-ssa-confidential", "Social Security agent: suspended SSN, secrecy, cash", [
    ["caller", "This is agent Michael Torres with the Social Security Administration, badge number 4471."],
    ["callee", "Hello?"],
    ["caller", "Your social security number was used to open bank accounts involved in money laundering and drug trafficking in Texas."],
    ["callee", "That's impossible, I've never been to Texas."],
    [
      "caller",
      "I believe you. That's why we need to protect your money. Your bank accounts will be frozen " +
        "tomorrow. You need to withdraw your savings and transfer them to a secure account the " +
        "government will give you.",
    ],
    ["callee", "Should I talk to my son about this?"],
    ["caller", "No. This is a confidential federal investigation. If you tell your family, they could be charged too."],
  ]),
  talk("conv-paypal-refund", "PayPal refund scam asking for login details", [
    ["caller", "Hi, I'm calling from PayPal. You are entitled to a refund of 89 dollars because of a duplicate charge on your account."],
    ["callee", "Oh, nice."],
    ["caller", "To issue the refund I just need to verify your identity. What's the email and password you use for PayPal?"],
    ["callee", "Isn't that private?"],
    [
      "caller",
      "It's completely safe, this call is recorded for your security. We also sent a one-time " +
        "passcode to your phone, please read it out to me.",
    ],
  ]),
  talk(
    "conv-investment-pension",
    "Pension 'review' pushing a guaranteed-return scheme",
    [
      ["caller", "Good afternoon, I'm calling from Heritage Wealth about a free pension review. Is now a good time?"],
      ["callee", "I suppose so. I have a pension with my old employer."],
      [
        "caller",
        "Most people's pensions are earning almost nothing. We have a property bond with guaranteed " +
          "returns of 12 percent a year, completely risk free.",
      ],
      ["callee", "That sounds too good to be true."],
      [
        "caller",
        "That's why places are limited. Only a few spots are left this month. If you transfer your " +
          "pension now, we can lock in the rate before Friday.",
      ],
      ["callee", "How would I transfer it?"],
      ["caller", "Just give me your pension policy number and your national insurance number and I'll handle everything."],
    ],
    { ani: "+442081234567", dialed: "+447700900444", destCountry: "GB" },
  ),
];
