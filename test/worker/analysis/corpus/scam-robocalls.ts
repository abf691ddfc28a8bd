// Scam and nuisance robocalls: recorded monologues, sometimes with a "hello?" from the callee,
// plus calls that say nothing at all and are judged on their facts.
import type { CorpusEntry } from "./types.ts";

const robo = (id: string, description: string, text: string, call?: CorpusEntry["call"]): CorpusEntry => ({
  id,
  label: "scam",
  description,
  segments: [
    { speaker: "callee", text: "Hello?" },
    { speaker: "caller", text },
  ],
  call,
});

export const SCAM_ROBOCALLS: CorpusEntry[] = [
  robo(
    "robo-car-warranty",
    "Extended car warranty robocall with press 1",
    "We've been trying to reach you concerning your vehicle's extended warranty. You should have received something in the mail about " +
      "your car's extended warranty. Since we have not gotten a response, we are giving you a final courtesy call before we close out " +
      "your file. Press 1 to speak with a warranty specialist. Press 2 to be removed from our list.",
  ),
  robo(
    "robo-irs-lawsuit",
    "IRS robocall threatening a lawsuit and arrest",
    "This message is from the Internal Revenue Service. The reason for this call is that a lawsuit has been filed against you for tax " +
      "evasion. Ignoring this message will result in an arrest warrant issued under your name. To settle the outstanding taxes before " +
      "the case goes to court, press one now to speak to the officer in charge.",
  ),
  robo(
    "robo-ssa-suspended",
    "Social Security suspension robocall",
    "This is an important message from the Social Security Administration. Your social security number has been suspended because " +
      "of suspicious activity and illegal use in Texas. Before we begin legal proceedings, please press 1 to talk to a federal agent " +
      "immediately. If you do not respond, your assets and bank accounts will be frozen.",
  ),
  robo(
    "robo-card-services",
    "Card services interest-rate robocall",
    "Hi, this is Rachel from card services, calling about your current credit card account. There are no problems with your account, " +
      "but you are eligible for a lower interest rate of 1.9 percent. This offer expires today, so press one to speak with a " +
      "representative who can lower your rate and reduce your monthly payments.",
  ),
  robo(
    "robo-amazon-order",
    "Amazon unauthorised purchase robocall",
    "Hello, this is a call from Amazon. We have detected a suspicious purchase on your Amazon account of an iPhone 15 Pro for " +
      "$999. If you did not authorize this order, press 1 to be connected to our fraud department. Otherwise the amount will be " +
      "charged to your card on file within 24 hours.",
  ),
  robo(
    "robo-hmrc-warrant",
    "HMRC tax-fraud robocall",
    "This is a call from HM Revenue and Customs. We are calling to inform you that there is a case of tax fraud registered against " +
      "you. A warrant has been issued for your arrest and the police will come to your address. To speak to a case officer about this " +
      "matter, press 1 now. This is your final notice.",
    { ani: "+442071234567", dialed: "+447700900321", destCountry: "GB" },
  ),
  robo(
    "robo-medicare-brace",
    "Medicare free back brace robocall",
    "Attention Medicare recipients. You may qualify for a free back brace or knee brace at no cost to you. Your Medicare benefits " +
      "cover this, but the program ends soon. Press one to speak with a benefits advisor and confirm your Medicare number so we can " +
      "ship it today.",
  ),
  robo(
    "robo-power-cutoff",
    "Utility disconnection robocall",
    "This is the disconnection department of your electric company. Our records show your account is past due and your power " +
      "will be shut off within 30 minutes. To avoid disconnection, press 1 to make a payment now with a prepaid card.",
  ),
  robo(
    "robo-parcel-fee",
    "Courier redelivery-fee robocall",
    "This is an automated message from the postal service. Your package could not be delivered because of an unpaid shipping fee. " +
      "Your parcel is on hold and will be returned to the sender. Press 1 to pay the redelivery fee of 2 dollars 99 and confirm " +
      "your card details.",
  ),
  robo(
    "robo-cruise-prize",
    "Free cruise prize robocall",
    "Congratulations! You have been selected to receive a free two-night cruise to the Bahamas. To claim your prize, press one now. " +
      "There is a small port and handling fee that must be paid today to reserve your cabin.",
  ),
  robo(
    "robo-student-loan",
    "Student loan forgiveness robocall",
    "This is a final notice regarding your student loan forgiveness application. Under a new federal program you may be eligible to " +
      "have your balance reduced or forgiven. The deadline is approaching. Press one to speak to a specialist about your eligibility.",
  ),
  robo(
    "robo-bank-card-blocked",
    "Bank card blocked robocall asking for the card number",
    "This is an automated message from the security department of your bank. Your debit card has been blocked due to unusual " +
      "activity. To reactivate your card, please enter your sixteen digit card number followed by the pound key.",
    { dtmf: Array.from({ length: 16 }, (_, i) => ({ t: 20 + i * 0.4, digit: String((i * 7) % 10), channel: "callee" })) },
  ),
  robo(
    "robo-embassy-parcel",
    "Consulate parcel robocall (Chinese embassy scam)",
    "This is the consulate. A parcel under your name containing illegal documents has been detained by customs. You are now " +
      "involved in a criminal investigation. Press nine to speak with an officer, otherwise you will be arrested.",
  ),
  robo(
    "robo-phone-suspended",
    "Mobile line suspension robocall",
    "This is an important message from your mobile provider. Your phone service will be suspended today due to a billing problem. " +
      "To keep your number active, press 1 and provide the verification code we have just texted to you.",
  ),
  robo(
    "robo-crypto-investment",
    "Crypto trading robocall",
    "Are you tired of low returns? Our artificial intelligence trading platform makes investors 30 percent a month, guaranteed. " +
      "Only a few places are left for new members this week. The minimum deposit is 250 dollars. Press 1 to speak to your personal " +
      "account manager.",
  ),
  {
    id: "facts-wangiri-unanswered",
    label: "scam",
    description: "One ring from a Caribbean number, hung up before answer",
    segments: [],
    call: { ani: "+12845550142", answered: false, billsec: null, durationSec: 3, hangupBy: "caller" },
  },
  {
    id: "facts-wangiri-answered",
    label: "scam",
    description: "Answered for one second, silence, from an African range",
    segments: [],
    call: { ani: "+2224512345", answered: true, billsec: 1, durationSec: 5, hangupBy: "caller" },
  },
  {
    id: "facts-premium-silent",
    label: "scam",
    description: "Silent answered call to a US 900 number (traffic pumping)",
    segments: [],
    call: { dialed: "+19005550199", answered: true, billsec: 240, durationSec: 246 },
  },
  {
    id: "facts-premium-prize",
    label: "scam",
    description: "Call to a UK 09 premium number playing a prize message",
    segments: [
      {
        speaker: "caller",
        text:
          "Congratulations, you have won a cash prize in our weekly draw. To claim your winnings please stay on the line while we " +
          "connect you. Calls cost three pounds sixty per minute plus your network access charge.",
      },
    ],
    call: { dialed: "+449098790123", destCountry: "GB", ani: "+447700900555" },
  },
  {
    id: "facts-satellite-short",
    label: "scam",
    description: "Short silent call to an international satellite range",
    segments: [],
    call: { dialed: "+881631234567", destCountry: null, answered: true, billsec: 4, durationSec: 9 },
  },
];
