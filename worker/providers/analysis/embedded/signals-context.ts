// Signals of the setting a scam builds before its ask: alarm, threats, urgency, secrecy, the
// recorded robocall, and the stories (refund, investment, prize, parcel, relative in trouble).
import { DIGIT_WORD, NUMBER_WORD } from "./lexicon.ts";
import { re } from "./pattern.ts";
import type { Signal } from "./types.ts";

const YOUR_THING =
  "(?:account|card|social security number|ssn|social insurance number|national insurance number|licen[cs]e|passport|visa|" +
  "benefits|assets|bank accounts?|service|phone|line|number|sim|windows licen[cs]e|identity)";

export const CONTEXT_SIGNALS: Signal[] = [
  {
    id: "tech_alarm",
    family: "tech_alarm",
    weight: 20,
    label: "Claims the computer is infected or hacked",
    keyword: "computer virus",
    genuine: true,
    hint: "tech_support_scam",
    patterns: [
      re`\byour (?:computer|laptop|pc|device|windows|mac|system|router|ip address|network|
        internet|icloud|apple id|microsoft account)\b[^.?!]{0,40}\b(?:infected|hacked|
        compromised|virus|viruses|malware|errors?|attack(?:ed)?|breach(?:ed)?|spyware|
        trojan|expired)\b`,
      re`\b(?:we|our (?:system|server|team|department)s?)(?: have| has|'ve)? (?:detected|
        received|noticed|found|got|been getting)\b[^.?!]{0,60}\b(?:your computer|your device|
        your ip|virus|malware|error (?:messages|reports|signals)|hackers?)\b`,
      re`\b(?:hackers?|someone) (?:are|is|have|has) (?:\w+ )?(?:accessing|access to|got into|
        inside|in) your (?:computer|device|network|router|icloud)\b`,
    ],
  },
  {
    id: "account_alarm",
    family: "account_alarm",
    weight: 15,
    label: "Claims suspicious activity on the callee's account",
    keyword: "suspicious activity",
    genuine: true,
    patterns: [
      re`^(?=.*\byour\b).*\b(?:suspicious|unusual|fraudulent|unauthori[sz]ed|illegal)\s+(?:\w+\s+)?
        (?:activity|activities|transactions?|charges?|purchases?|payments?|log-?ins?|sign-ins?|access|attempts?|
        orders?|withdrawals?|transfers?)\b`,
      re`\byour ${YOUR_THING} (?:has|have|was|were|is|are) (?:been )?
        (?:stolen|compromised|hacked|cloned|leaked|used (?:in|for|by)|involved in|linked to)\b`,
      /\b(?:money laundering|drug trafficking|illegal (?:activities|documents|drugs|substances)|identity theft)\b/,
    ],
  },
  {
    id: "threat_arrest",
    family: "threat",
    weight: 22,
    label: "Threatens arrest or legal action",
    keyword: "arrest",
    patterns: [
      re`\byou (?:will|are going to|'ll|could|may|can) (?:be )?(?:arrested|detained|taken into custody|
        jailed|prosecuted|deported|sued|charged)\b`,
      /\b(?:arrest )?warrant (?:has been |was |is being )?(?:issued|out|filed|signed)? ?(?:for|against|in|under) (?:you|your)\b/,
      re`\b(?:lawsuit|legal action|legal proceedings|criminal (?:charges?|case|complaint)|
        case|complaint)\b[^.?!]{0,30}\b(?:filed|taken|brought|registered|issued|opened|
        pending) (?:against|on|in) (?:you|your)\b`,
      re`\b(?:police|officers?|sheriff|authorities|marshals)\b[^.?!]{0,20}\b(?:will|are going to|
        are on their way to|coming to) (?:come|arrive|arrest|be at|knock|visit|pick you up|
        your)\b`,
    ],
  },
  {
    id: "threat_suspend",
    family: "threat",
    weight: 18,
    label: "Threatens to suspend, freeze or cut off",
    keyword: "suspension",
    genuine: true,
    patterns: [
      re`\byour ${YOUR_THING} (?:will|is going to|has|have|is|are|may|could) (?:be |been |get )?
        (?:suspended|blocked|frozen|closed|cancel+ed|terminated|disconnected|deactivated|seized|revoked|shut (?:off|down)|cut off)\b`,
      re`\b(?:suspend|freeze|block|seize|cancel|terminate|deactivate|disconnect|shut off|
        cut off) (?:all )?your (?:\w+ )?(?:account|card|number|license|licence|benefits|
        assets|service|power|electricity|gas|water|line|phone|passport)\b`,
      re`\b(?:power|electricity|gas|water|service|heat(?:ing)?)\b[^.?!]{0,20}\b(?:will be|
        is going to be|is scheduled to be|gets|to be) (?:disconnected|shut off|cut off|
        turned off|suspended)\b`,
    ],
  },
  {
    id: "urgency",
    family: "urgency",
    weight: 12,
    label: "Pushes for immediate action",
    keyword: "urgent",
    genuine: true,
    patterns: [
      new RegExp(`\\bwithin (?:the next )?(?:${NUMBER_WORD}|an?|twenty-four) (?:hours?|minutes?|mins?)\\b`),
      /\b(?:final|last) (?:notice|warning|chance|attempt|call|reminder|opportunity)\b/,
      re`\b(?:before it'?s too late|time is running out|act (?:now|fast|quickly)|expires? (?:today|
        tonight)|about to expire|limited time|today only)\b`,
      /\b(?:this|it) (?:is|'s) (?:very |extremely )?(?:urgent|time[- ]sensitive|an emergency)\b/,
      /\b(?:immediately|right away|urgently|without delay)\b/,
      /\b(?:only|just) (?:a few|\w+) (?:spots|places|slots|seats|positions) (?:are |is )?(?:left|remaining|available)\b/,
      /\b(?:get in early|limited (?:spots|places|slots))\b/,
    ],
  },
  {
    id: "stay_on_line",
    family: "urgency",
    weight: 10,
    label: "Tells the callee not to hang up",
    keyword: "don't hang up",
    genuine: true,
    patterns: [
      /\b(?:don'?t|do not|never) (?:hang up|put the phone down|end (?:this|the) call|disconnect)\b/,
      /\bstay on the (?:line|phone)\b/,
    ],
  },
  {
    id: "secrecy",
    family: "secrecy",
    weight: 24,
    label: "Asks the callee to keep the call secret",
    keyword: "secrecy",
    patterns: [
      re`\b(?:don'?t|do not|never|shouldn'?t|must not|mustn'?t) (?:tell|inform|mention|
        discuss|say (?:anything|a word)|talk)\b[^.?!]{0,40}\b(?:about (?:this|the|our|
        what)|anyone|anybody|mom|mum|dad|mother|father|your (?:family|wife|husband|parents|
        children|kids|son|daughter)|bank|teller|cashier|staff|branch|employees?)\b`,
      re`\b(?:keep (?:this|it|the call|our conversation)|this is|this call is|it is|it's) (?:an? )?(?:strictly |
        completely |totally )?(?:confidential|secret|between us|between you and me|private)\b`,
      re`\b(?:bank|cashier|teller|staff|employees?|branch)\b[^.?!]{0,20}\b(?:may|might|
        could|are|is) (?:be )?(?:involved|in on it|part of (?:it|this)|under investigation|
        corrupt)\b`,
      /\bif (?:they|the cashier|the teller|the bank|anyone|somebody|someone) asks?\b[^.?!]{0,20}\b(?:say|tell them|just say)\b/,
      /\b(?:gag order|non-?disclosure|confidential investigation|sealed investigation)\b/,
    ],
  },
  {
    id: "dismiss_warning",
    family: "secrecy",
    weight: 20,
    label: "Talks the callee past a security warning",
    keyword: "ignore the warning",
    patterns: [
      /\b(?:ignore|don't worry about|disregard|never mind)\b[^.?!]{0,30}\b(?:warning|message|text|notice|alert)\b/,
      /\b(?:it's|it is) (?:fine|okay|ok|safe|alright|all right) to (?:give|share|tell|read)\b/,
    ],
  },
  {
    id: "press_digit",
    family: "robocall",
    weight: 15,
    label: "Recorded prompt to press a key",
    keyword: "press 1",
    genuine: true,
    hint: "robocall",
    patterns: [
      new RegExp(`\\bpress(?:ing)? (?:the )?(?:number |key |button )?${DIGIT_WORD}\\b`),
      /\bto (?:be removed|opt out|unsubscribe)\b[^.?!]{0,40}\b(?:list|calls?|press)\b/,
    ],
  },
  {
    id: "automated_message",
    family: "robocall",
    weight: 8,
    label: "Announces a recorded or automated message",
    keyword: "automated message",
    genuine: true,
    hint: "robocall",
    patterns: [
      re`\bthis is (?:an?|your) (?:automated|recorded|pre-?recorded|computer(?:i[sz]ed)?|
        courtesy|important) (?:message|call|notice|reminder|notification)\b`,
      /\b(?:speak|talk) (?:to|with) (?:a|an|one of our) (?:live )?(?:agent|representative|operator|specialist|advisor|officer|agents)\b/,
    ],
  },
  {
    id: "warranty_topic",
    family: "robo_topic",
    weight: 20,
    label: "Sells an extended warranty or insurance cover",
    keyword: "warranty",
    hint: "warranty_robocall",
    patterns: [
      /\b(?:car|vehicle|auto(?:motive)?|extended|factory|manufacturer'?s?|home) warrant(?:y|ies)\b/,
      /\b(?:vehicle|auto) (?:service|protection) (?:contract|agreement|plan)\b/,
      /\b(?:warranty|coverage|policy)\b[^.?!]{0,40}\b(?:expire|expired|expiring|lapse|lapsed|about to end|will end)\b/,
      /\b(?:health|life|final expense|burial|medicare|medical) (?:insurance|coverage|plans?|benefits)\b/,
      /\bfree (?:back brace|knee brace|medical alert|brace|glucose meter|health screening)\b/,
    ],
  },
  {
    id: "credit_topic",
    family: "robo_topic",
    weight: 20,
    label: "Offers to cut a card's interest rate or debts",
    keyword: "interest rate",
    hint: "credit_card_scam",
    patterns: [
      re`\b(?:lower|reduce|lowering|reducing|cut) (?:your )?(?:credit card )?(?:interest|
        apr|interest rate|rates?|monthly payments?|debts?)\b`,
      /\b(?:debt|credit) (?:relief|consolidation|reduction|settlement)\b/,
      /\b(?:eligible|qualify|qualified|approved) for (?:a |an )?(?:lower|reduced|zero|0%?)\b/,
    ],
  },
  {
    id: "loan_topic",
    family: "robo_topic",
    weight: 18,
    label: "Pitches loans, grants or subsidised installs",
    keyword: "loan offer",
    hint: "robocall",
    patterns: [
      /\b(?:student loan|loan) (?:forgiveness|relief|approval)\b/,
      /\bpre-?approved\b/,
      /\bsolar (?:panels?|program|programme|incentive)\b/,
    ],
  },
];
