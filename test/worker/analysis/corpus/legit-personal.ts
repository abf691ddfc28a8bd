// Ordinary personal calls: family, friends and colleagues talking about money, codes, computers and scams.
import type { CorpusEntry } from "./types.ts";

type Turn = ["caller" | "callee", string];
const talk = (id: string, description: string, turns: Turn[], call?: CorpusEntry["call"]): CorpusEntry => ({
  id,
  label: "legit",
  description,
  segments: turns.map(([speaker, text]) => ({ speaker, text })),
  call,
});

export const LEGIT_PERSONAL: CorpusEntry[] = [
  talk("pers-wifi-code", "Colleague asks for the office wifi code", [
    ["caller", "Hey, it's Mike. I'm in the meeting room on the second floor, what's the wifi code again?"],
    ["callee", "It's on the whiteboard, but it's guest2024, all lower case."],
    ["caller", "Got it, thanks. And can you tell me the password for the projector account too?"],
    ["callee", "Ask Jen, she set it up."],
  ]),
  talk(
    "pers-pocket-money",
    "Child asks a parent about pocket money",
    [
      ["caller", "Mum, it's me. Can I have my pocket money early this week? There's a school trip to the cinema on Friday."],
      ["callee", "I suppose so. How much do you need?"],
      ["caller", "Fifteen pounds for the ticket and a bit for popcorn."],
      ["callee", "All right, I'll transfer twenty to your bank account tonight. Don't spend it all on sweets."],
      ["caller", "Thanks Mum, love you!"],
    ],
    { ani: "+447700900010", dialed: "+447700900011", destCountry: "GB" },
  ),
  talk("pers-dad-online-banking", "Daughter helps her father set up online banking", [
    ["caller", "Hi Dad, did you manage to set up the banking app?"],
    ["callee", "Nearly. It says the bank has sent me a code."],
    [
      "caller",
      "Right, that's normal. Type it into the app, not to anyone on the phone. Never tell anyone your password or that code, not even me.",
    ],
    ["callee", "Okay, it's in. Now it wants a new password."],
    ["caller", "Pick something long, and write it down somewhere safe at home."],
  ]),
  talk("pers-borrow-money", "Friend borrows money for a concert ticket", [
    ["caller", "Hey, can you lend me forty dollars for the concert ticket? I'll pay you back on Friday when I get paid."],
    ["callee", "Sure. Want me to send it on Venmo?"],
    ["caller", "Yeah, that'd be great. Thanks, you're a lifesaver."],
  ]),
  talk("pers-grocery-money", "Daughter checks her mother got the grocery money", [
    ["caller", "Hi Mum, did the money I sent for the groceries come through?"],
    ["callee", "Yes, love, it arrived this morning. You didn't have to."],
    ["caller", "It's fine. I'll come round on Sunday and we can go shopping together."],
  ]),
  talk(
    "pers-gift-collection",
    "Colleague collects money for a leaving gift card",
    [
      ["caller", "Hi, it's Rachel. We're doing a collection for Sarah's leaving present, we're getting her a spa gift card."],
      ["callee", "Oh lovely, count me in. How much?"],
      ["caller", "Ten pounds each. You can give me cash on Monday or pay it into the team kitty."],
    ],
    { ani: "+447700900020", dialed: "+447700900021", destCountry: "GB" },
  ),
  talk("pers-popup-warning", "Son tells his mother a pop-up was a scam", [
    ["caller", "A message popped up on my screen saying my computer was infected and I should phone Microsoft on a number."],
    ["callee", "Mum, don't call that number, it's a scam. Microsoft never does that."],
    ["caller", "It looked very official."],
    [
      "callee",
      "They always do. Just close the browser, and don't install anything or let anyone onto your computer. I'll check it at the weekend.",
    ],
  ]),
  talk("pers-tax-preparer-warning", "Tax preparer warns a client about IRS impersonators", [
    ["caller", "Hi Gloria, it's Frank, your tax preparer. Your return has been filed and you're getting a refund of 620 dollars."],
    ["callee", "Wonderful. Oh, I got a strange voicemail saying it was the IRS and I'd be arrested."],
    [
      "caller",
      "That's a scam. The IRS writes to you first, and they never ask for gift cards or threaten " +
        "arrest on the phone. Don't call them back.",
    ],
    ["callee", "Thank goodness I asked you."],
  ]),
  talk("pers-index-funds", "Cousins chat about investing", [
    ["caller", "I finally started investing, just a monthly amount into an index fund."],
    ["callee", "Good for you. I'm too nervous, I keep hearing about crypto people losing everything."],
    ["caller", "Yeah, I'm staying away from crypto. The fund went up about seven percent last year but it can go down too."],
    ["callee", "Maybe I'll ask my bank about their pension options."],
  ]),
  talk("pers-parcel-neighbour", "Neighbour has a parcel delivered to the wrong house", [
    ["caller", "Hi, it's Jean from number 14. I've got a parcel for you, the courier left it with me."],
    ["callee", "Oh thank you! I've been waiting for that."],
    ["caller", "No problem, pop round whenever, I'm in all afternoon."],
  ]),
  talk(
    "pers-restaurant",
    "Booking a table at a restaurant",
    [
      ["caller", "Hi, could I book a table for four on Saturday at eight?"],
      ["callee", "Let me check. Yes, we have a table at eight. Can I take a name and a phone number?"],
      ["caller", "Smith, 07700 900123."],
      ["callee", "Lovely, we'll hold it for fifteen minutes. No deposit needed for four people."],
    ],
    { ani: "+447700900123", dialed: "+441174960000", destCountry: "GB" },
  ),
  talk("pers-hospital-lift", "Friend asks for a lift home from hospital", [
    ["caller", "Hi, it's me. I'm in the hospital, I twisted my ankle playing football. Nothing serious."],
    ["callee", "Oh no! Do you need anything?"],
    ["caller", "Could you pick me up in an hour? They're just putting a bandage on."],
    ["callee", "Of course, text me which entrance."],
  ]),
  talk("pers-birthday-party", "Sister plans a surprise party", [
    ["caller", "I'm organising a surprise party for Dad's sixtieth. Don't tell him anything!"],
    ["callee", "My lips are sealed. What do you need from me?"],
    ["caller", "Can you bring a cake? I'll pay you back for it."],
    ["callee", "Happy to, no need to pay me back."],
  ]),
  talk("pers-router-help", "Brother helps his sister fix her router", [
    ["caller", "My internet keeps dropping. Can you help?"],
    ["callee", "Sure. Turn the router off at the wall, wait thirty seconds, and turn it back on."],
    ["caller", "Okay, done. The lights are green now."],
    ["callee", "Great. If it happens again I can install a new firmware update when I visit."],
  ]),
  talk(
    "pers-car-share-petrol",
    "Friends split petrol costs",
    [
      ["caller", "Hey, that trip to the coast cost about sixty quid in petrol. Shall we split it three ways?"],
      ["callee", "Yeah of course, I'll send you twenty now with a bank transfer."],
      ["caller", "Cheers, no rush."],
    ],
    { ani: "+447700900030", dialed: "+447700900031", destCountry: "GB" },
  ),
  talk("pers-bank-branch-visit", "Husband tells his wife he is at the bank", [
    ["caller", "Hi love, I'm at the bank now, paying in the cheque from your aunt."],
    ["callee", "Oh good. Can you ask them about the joint account while you're there?"],
    ["caller", "Will do. They said the money should clear in two days."],
  ]),
];
