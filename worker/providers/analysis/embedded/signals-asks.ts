// Signals of an ask: money in a form that cannot be recalled, access to a computer, or the
// secrets that open an account. Most are phrased in the second person ("your code", "give me"),
// because a customer describing their own card or code is not asking anyone for it.
import { NUMBER_WORD } from "./lexicon.ts";
import { re } from "./pattern.ts";
import type { Signal } from "./types.ts";

/** An ask, unless the speaker is the one giving: "I'll give you the account number" offers, it does not ask. */
const ASK =
  "(?:read|tell|give|send|say|repeat|confirm|provide|share|need|want|forward|type|enter|verify|" +
  "what's|what is|what was|can i have|can i get|could i have)(?! you\\b)";
const CODE =
  "(?:(?:one[- ]?time|verification|security|confirmation|authentication|authori[sz]ation|access|log-?in|sms|text|6-digit|six[- ]digit|" +
  "4-digit|four[- ]digit|two[- ]factor|2fa)\\s+(?:pass)?code|otp|passcode|code (?:that |which )?(?:we|i|they|you) (?:just |have |'ve )?" +
  "(?:sent|texted|send|text|emailed|received|got|get)|code (?:on|in) (?:your )?(?:phone|screen|text|message|sms|email))";
const CREDENTIAL =
  "(?:(?:full |long )?(?:card|credit card|debit card|bank account|account|routing) number|(?:card|bank|banking|payment) details|" +
  "expir(?:y|ation) date|cvv2?|cvc|security (?:number|digits|code) on the back|(?:three|3) digits on the back|(?:your|card|atm) pin|" +
  "pin (?:number|code)|your (?:[\\w-]+ ){0,3}password|password (?:you use|for your|to your)|log-?in details|username and password|" +
  "social security number|ssn|social insurance number|national insurance number|mother's maiden name|memorable (?:word|information))";

/** Up to n words between the ask and the thing asked for, none of them "my": asking about one's own code is not harvesting it. */
const gap = (n: number) => `(?:(?!my\\b)[\\w']+\\s+){0,${n}}?`;

export const ASK_SIGNALS: Signal[] = [
  {
    id: "otp_ask",
    family: "otp",
    weight: 30,
    label: "Asks for a one-time or verification code",
    keyword: "one-time code",
    genuine: true,
    negatable: true,
    patterns: [
      // "I sent my code to your number by mistake": the takeover of a messaging account.
      /\bcode\b[^.?!]{0,40}\b(?:by mistake|by accident|accidentally|to the wrong number|to your number instead)\b/,
      new RegExp(`\\b${ASK}\\s+${gap(5)}${CODE}`),
      new RegExp(`\\b${CODE}\\b[^.?!]{0,30}\\b(?:to me|back to me|with me|for me|over the phone|out loud)\\b`),
    ],
  },
  {
    id: "otp_mention",
    family: "otp",
    weight: 8,
    label: "Says a code is being sent to the phone",
    keyword: "verification code",
    genuine: true,
    patterns: [
      /\b(?:got|get|received|receive|sent|send|texted|text)\b[^.?!]{0,30}\b(?:code|pin|passcode)\b/,
      /\b(?:send|sent|sending|text|texted|texting) (?:you )?(?:a|the|an) (?:\w+ )?(?:code|pin)\b/,
      /\b(?:did|have) you (?:get|got|receive|received) (?:a|the|an|that) (?:\w+ )?(?:code|text)\b/,
      /\byou(?:'ll| will|'re going to| are going to)? (?:receive|get) (?:a|an|the) (?:[\w-]+ ){0,2}(?:code|pin|passcode)\b/,
    ],
  },
  {
    id: "credential_ask",
    family: "credential",
    weight: 25,
    label: "Asks for card, account or login secrets",
    keyword: "card details",
    genuine: true,
    negatable: true,
    patterns: [
      new RegExp(`\\b${ASK}\\s+${gap(7)}${CREDENTIAL}\\b`),
      new RegExp(`\\b(?:can|could|may) (?:i|we) (?:have|get|take)\\s+${gap(3)}${CREDENTIAL}\\b`),
    ],
  },
  {
    id: "verification_ask",
    family: "verification",
    weight: 6,
    label: "Asks to confirm personal details",
    keyword: "personal details",
    genuine: true,
    patterns: [
      re`\b(?:confirm|verify|what is|what's|can i (?:have|get)|tell me)\s+(?:\w+\s+){0,3}?(?:date of birth|
        birth ?date|home address|postcode|zip code|full name|last (?:four|4) digits)\b`,
      /\bverify your (?:identity|information|details|account)\b/,
    ],
  },
  {
    id: "payment_demand",
    family: "payment",
    weight: 14,
    label: "Demands a payment",
    keyword: "payment",
    genuine: true,
    negatable: true,
    patterns: [
      re`\byou (?:need|have|must|are required|will need|'ll need|got) to (?:pay|make (?:a|
        the) payment|settle|clear (?:the|this) (?:debt|balance))\b`,
      /\b(?:make|process|take) (?:a|the) payment (?:now|today|immediately|right now|over the phone)\b/,
      /\b(?:outstanding|unpaid|overdue) (?:balance|amount|debt|taxes|tax|bill|payment|fine)\b/,
      new RegExp(`\\byou (?:still )?owe (?:us |the \\w+ )?(?:\\$|£|€)?${NUMBER_WORD}`),
      /\bpay (?:it |this |that |the (?:fine|fee|penalty|amount|balance) )?(?:now|today|immediately|right now|right away)\b/,
      /\b(?:minimum|initial|first) (?:deposit|investment) (?:is|of)\b/,
    ],
  },
  {
    id: "send_money",
    family: "payment",
    weight: 12,
    label: "Asks for money to be sent",
    keyword: "send money",
    negatable: true,
    genuine: true,
    patterns: [
      new RegExp(
        `\\b(?:send|wire|transfer|lend|give) (?:me|us|him|her|them) (?:the |some )?(?:money|cash|funds|(?:\\$|£|€)\\s?${NUMBER_WORD})`,
      ),
    ],
  },
  {
    id: "gift_card_payment",
    family: "gift_card",
    weight: 35,
    label: "Wants payment in gift cards",
    keyword: "gift cards",
    hint: "payment_scam",
    negatable: true,
    patterns: [
      re`\b(?:in|with|using|by|via|through) (?:\w+ ){0,2}?(?:gift|itunes|google play|steam|ebay|apple|amazon|target|walmart|green dot)
        (?: gift)? ?cards\b`,
      re`\b(?:buy|purchase|get|pick up|go and get)\s+(?:\w+\s+){0,4}?(?:itunes|google play|
        steam|ebay|apple|amazon|target|walmart|visa|green dot|prepaid) (?:gift )?cards?\b`,
      /\b(?:buy|purchase|get|pick up)\s+(?:\w+\s+){0,3}?gift cards\b/,
      /\b(?:scratch (?:off )?the (?:back|silver|strip)|numbers? on the back of (?:the|each) (?:gift )?card|claim codes?)\b/,
    ],
  },
  {
    id: "gift_card_mention",
    family: "mention",
    weight: 8,
    label: "Mentions gift cards",
    keyword: "gift cards",
    patterns: [/\bgift ?cards?\b/],
  },
  {
    id: "crypto_payment",
    family: "crypto",
    weight: 35,
    label: "Wants money sent as cryptocurrency",
    keyword: "bitcoin",
    negatable: true,
    patterns: [
      /\b(?:bitcoin|crypto) (?:atm|machine|kiosk)s?\b/,
      /\b(?:crypto|bitcoin|btc|usdt|tether|ethereum|eth)? ?wallet address\b/,
      re`\b(?:send|deposit|convert|transfer|pay|put|load)\s+(?:\w+\s+){0,4}?(?:in|into|
        as|to|with|using|via|through) (?:a |the )?(?:bitcoin|crypto(?:currency)?|usdt|
        tether|btc)\b`,
    ],
  },
  {
    id: "crypto_mention",
    family: "mention",
    weight: 8,
    label: "Mentions cryptocurrency",
    keyword: "crypto",
    patterns: [/\b(?:bitcoin|crypto(?:currency|currencies)?|btc|ethereum|usdt|tether|binance|coinbase)\b/],
  },
  {
    id: "safe_account",
    family: "wire",
    weight: 35,
    label: "Wants the money moved to a 'safe' account",
    keyword: "safe account",
    patterns: [
      /\b(?:to|into|in) (?:a|the|your|our|this) (?:new )?(?:safe|secure|protected|holding|safety|temporary|escrow) (?:bank )?account\b/,
    ],
  },
  {
    id: "move_money",
    family: "wire",
    weight: 22,
    label: "Wants the callee's money moved",
    keyword: "move money",
    negatable: true,
    patterns: [
      re`\b(?:move|transfer|withdraw|shift) (?:all |all of |most of )?your (?:money|funds|
        savings|balance|life savings|pension|retirement|401k|isa)\b`,
    ],
  },
  {
    id: "courier_collect",
    family: "wire",
    weight: 30,
    label: "Sends someone to collect cards or cash",
    keyword: "courier collection",
    patterns: [
      re`\b(?:collect|pick up|come for|hand over|give)\s+(?:your|the)\s+(?:\w+\s+)?(?:bank cards?|
        debit cards?|credit cards?|cards|cash|money|gold|valuables)\b(?=[^.?!]*\b(?:courier|
        driver|officer|agent|someone|colleague|person)\b)`,
      re`\b(?:courier|driver|officer|agent|someone|colleague)\b[^.?!]{0,40}\b(?:collect|
        pick up|come for|come and get)\b[^.?!]{0,20}\b(?:cards?|cash|money|gold|envelope)\b`,
    ],
  },
  {
    id: "money_transfer_service",
    family: "wire",
    weight: 20,
    label: "Names an untraceable money-transfer service",
    keyword: "money transfer",
    patterns: [/\b(?:western union|moneygram|money gram|ria money)\b/],
  },
  {
    id: "wire_transfer",
    family: "wire",
    weight: 10,
    label: "Asks for a wire transfer",
    keyword: "wire transfer",
    genuine: true,
    negatable: true,
    patterns: [/\bwire (?:transfer|the money|it|the funds|funds|the payment)\b/, /\b(?:zelle|venmo|cash ?app)\b/],
  },
  {
    id: "remote_tool",
    family: "remote",
    weight: 30,
    label: "Asks to install remote-access software",
    keyword: "remote access",
    genuine: true,
    negatable: true,
    patterns: [
      re`\b(?:anydesk|any desk|teamviewer|team viewer|ultraviewer|ultra viewer|supremo|
        quick ?assist|quick ?support|screenconnect|connectwise|rustdesk|splashtop|ammyy|
        zoho assist|getscreen)\b`,
    ],
  },
  {
    id: "remote_access",
    family: "remote",
    weight: 20,
    label: "Wants access to the computer or screen",
    keyword: "remote access",
    genuine: true,
    negatable: true,
    patterns: [
      re`\b(?:remote (?:access|session|connection|control)|(?:access|connect) to your (?:computer|
        laptop|pc|device|screen|phone|desktop)|share your screen|take control of)\b`,
      /\b(?:windows key|windows button|event viewer|command prompt|run box|type (?:in )?(?:cmd|eventvwr|www))\b/,
    ],
  },
  {
    id: "install_ask",
    family: "remote",
    weight: 12,
    label: "Asks to download or install something",
    keyword: "install",
    genuine: true,
    negatable: true,
    patterns: [
      /\b(?:download|install)\s+(?:\w+\s+){0,2}?(?:app|application|program|software|tool|file|extension)\b/,
      /\bgo to (?:www|the website|[a-z0-9-]+ ?(?:dot|\.) ?(?:com|net|org|support|help|me|io))\b/,
    ],
  },
];
