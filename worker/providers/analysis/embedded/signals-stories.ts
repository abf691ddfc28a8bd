// Signals of the stories that carry a scam's ask (a refund gone wrong, an investment, a prize, a
// parcel, a relative in trouble) and the phrases a genuine organisation uses that a scammer avoids.
import { NUMBER_WORD } from "./lexicon.ts";
import { re } from "./pattern.ts";
import type { Signal } from "./types.ts";

const MONEY = `(?:\\$|£|€|usd|dollars|pounds|euros)?\\s?${NUMBER_WORD}`;

export const STORY_SIGNALS: Signal[] = [
  {
    id: "overpayment",
    family: "refund",
    weight: 30,
    label: "Claims a refund overpaid and wants the difference back",
    keyword: "overpaid refund",
    hint: "refund_scam",
    patterns: [
      re`\b(?:overpaid|over-?paid|overpayment|over-?payment|over-?refund(?:ed)?|refunded (?:you )?too much|
        (?:sent|transferred|credited|refunded|put) (?:you )?too much)\b`,
      /\b(?:typed|entered|added|put in) (?:an? )?(?:extra|additional|wrong) (?:zero|zeros|digit|amount)\b/,
      /\b(?:send|pay|give|transfer|return) (?:\w+ )?(?:back )?(?:the|that) (?:difference|extra|excess|rest|balance)\b/,
    ],
  },
  {
    id: "renewal_charge",
    family: "refund",
    weight: 15,
    label: "Announces a charge or renewal the callee never made",
    keyword: "subscription renewal",
    genuine: true,
    hint: "refund_scam",
    patterns: [
      re`\byour (?:\w+ ){0,3}?(?:subscription|membership|plan|licen[cs]e|protection|order|
        purchase)\b[^.?!]{0,50}\b(?:renew(?:ed|al)?|charged|auto-?renew(?:ed)?|debited|
        deducted|billed)\b`,
      new RegExp(
        `\\b(?:charged|charge of|debited|deducted|billed) (?:\\w+ ){0,3}?${MONEY}\\b[^.?!]{0,40}\\b(?:subscription|renewal|membership)\\b`,
      ),
      /\b(?:order|purchase) of (?:an? )?(?:iphone|laptop|macbook|playstation|gift cards?|television|tv)\b/,
    ],
  },
  {
    id: "refund_offer",
    family: "refund",
    weight: 8,
    label: "Offers a refund",
    keyword: "refund",
    genuine: true,
    hint: "refund_scam",
    patterns: [
      /\b(?:to|so|in order to) (?:process|issue|complete|send|give|transfer) (?:you )?(?:the |your |a )?refund\b/,
      /\b(?:entitled|eligible) (?:to|for) (?:a )?refund\b/,
    ],
  },
  {
    id: "investment_returns",
    family: "investment",
    weight: 25,
    label: "Promises guaranteed or outsized returns",
    keyword: "guaranteed returns",
    hint: "investment_scam",
    negatable: true,
    patterns: [
      /\bguaranteed (?:\w+ )?(?:returns?|profits?|income|gains?|payouts?|earnings?)\b/,
      /\b(?:double|triple) (?:your )?(?:money|investment|capital|deposit)\b/,
      new RegExp(
        `\\b${NUMBER_WORD} ?(?:%|percent|per cent) (?:\\w+ )?(?:(?:returns?|profits?|gains?) )?(?:a|per|every|each) (?:day|week|month)\\b`,
      ),
      /\brisk[- ]free\b/,
      /\b(?:can't|cannot|won't|will not|never) lose\b/,
    ],
  },
  {
    id: "investment_platform",
    family: "investment",
    weight: 12,
    label: "Pitches a trading platform or investment scheme",
    keyword: "trading platform",
    hint: "investment_scam",
    patterns: [
      /\b(?:trading|investment|crypto(?:currency)?|forex|mining|bitcoin) (?:platform|opportunity|program|programme|scheme|pool|app|bot)\b/,
    ],
  },
  {
    id: "withdrawal_fee",
    family: "investment",
    weight: 25,
    label: "Wants a fee before profits can be withdrawn",
    keyword: "withdrawal fee",
    hint: "investment_scam",
    patterns: [
      re`\b(?:withdraw(?:al)? (?:fee|tax|charge)|(?:fee|tax|commission|deposit) (?:to|
        before you can|so you can|in order to) (?:withdraw|release|unlock))\b`,
      /\bunlock (?:your )?(?:profits|funds|money|account|withdrawal)\b/,
    ],
  },
  {
    id: "prize_won",
    family: "prize",
    weight: 20,
    label: "Says the callee has won a prize",
    keyword: "prize",
    hint: "prize_scam",
    patterns: [
      /\byou(?:'ve| have)? (?:been (?:selected|chosen|picked)|won|are (?:the|our|a) (?:lucky )?winner)\b/,
      /\bcongratulations\b[^.?!]{0,60}\b(?:won|winner|selected|chosen|prize|reward)\b/,
      /\b(?:lottery|sweepstakes?|jackpot|grand prize|cash prize|prize draw|publishers clearing house)\b/,
      /\bclaim (?:your|the) (?:prize|reward|winnings|gift|voucher|free)\b/,
      /\bfree (?:cruise|vacation|holiday|trip|iphone)\b/,
    ],
  },
  {
    id: "release_fee",
    family: "fee",
    weight: 15,
    label: "Wants a fee before something is released",
    keyword: "release fee",
    genuine: true,
    negatable: true,
    patterns: [
      re`\b(?:processing|release|handling|transfer|clearance|customs|redelivery|re-delivery|
        shipping|admin(?:istration)?|activation|insurance) (?:fee|charge)\b`,
      /\b(?:taxes|tax) (?:on|for) (?:your|the) (?:winnings|prize)\b/,
    ],
  },
  {
    id: "parcel_problem",
    family: "delivery",
    weight: 15,
    label: "Claims a parcel is held or undeliverable",
    keyword: "parcel held",
    genuine: true,
    hint: "delivery_scam",
    patterns: [
      re`\b(?:your |a |the )?(?:parcel|package|shipment|consignment)\b[^.?!]{0,60}\b(?:held|
        on hold|stuck|seized|detained|suspended|could(?: not|n't) be delivered|undeliverable|
        returned to (?:the )?sender|awaiting (?:payment|customs)|at customs|in customs)\b`,
      re`\b(?:parcel|package|shipment)\b[^.?!]{0,40}\b(?:in|under) your name\b[^.?!]{0,40}\b(?:illegal|
        fake|counterfeit|drugs|passports|contraband)\b`,
    ],
  },
  {
    id: "relative_trouble",
    family: "family",
    weight: 18,
    label: "Claims a relative is in trouble and needs money",
    keyword: "relative in trouble",
    hint: "family_emergency_scam",
    patterns: [
      /\bi(?:'m| am) in (?:big |real |serious |a lot of )?(?:trouble|jail|prison|custody|a police station|a cell)\b/,
      /\bi (?:got|was|have been|'ve been|just got) (?:arrested|detained|locked up|kidnapped|mugged|robbed|in (?:an|a) (?:car )?accident)\b/,
      /\b(?:bail|bail money|bond money|bail bond)\b/,
      /\b(?:we have|we've got|we took) your (?:son|daughter|grandson|granddaughter|child|husband|wife)\b/,
      /\b(?:grandma|grandpa|granny|nana|grandmother|grandfather)\b[^.?!]{0,15}\bit'?s me\b/,
    ],
  },
  {
    id: "call_back_official",
    family: "mitigation",
    weight: -20,
    label: "Advises calling back on the official number",
    keyword: null,
    patterns: [
      re`\b(?:call|ring|contact) (?:us|the bank|them)? ?(?:back )?(?:on|at|using) the (?:number|
        phone number) (?:on|printed on) (?:the back of )?(?:your|the) (?:card|statement|
        website|bill|letter)\b`,
      /\bhang up and call\b/,
    ],
  },
  {
    id: "never_asks",
    family: "mitigation",
    weight: -10,
    label: "Says the organisation never asks for codes or details",
    keyword: null,
    patterns: [/\b(?:will|would|'ll|do|does) never (?:ask|call|request|require|text|email)\b/],
  },
  {
    id: "scam_warning",
    family: "mitigation",
    weight: -10,
    label: "Warns about scams",
    keyword: null,
    patterns: [
      /\b(?:it's|that's|that is|it is|sounds like|must be) (?:a |just a |definitely a |probably a )?(?:scam|fraud|con)\b/,
      /\bscammers?\b/,
    ],
  },
];
