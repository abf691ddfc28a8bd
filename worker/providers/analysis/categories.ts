// The closed list of verdict categories, shared by every tier: the embedded analyser picks one from
// the cue families it heard (embedded/decision.ts), the LLM tiers are told the same list (prompt.ts).
// Values are snake_case keys; clients filter and count by them (alert rules, GET /calls?category=).
export const CATEGORIES = {
  government_impersonation: "claims to be a tax office, Social Security, the police, a court or another agency",
  bank_impersonation: "claims to be a bank's fraud or security team",
  credit_card_scam: "card services: lower interest rates, card protection, a card issuer's offer",
  tech_support_scam: "claims a computer is infected or hacked and wants access or payment (Microsoft, Apple, Norton…)",
  retail_impersonation: "claims an order, charge or subscription with a retailer (Amazon, Walmart…)",
  refund_scam: "promises a refund or says the callee was overcharged, then wants access, codes or money back",
  utility_scam: "threatens a disconnection of power, gas or water",
  carrier_impersonation: "claims to be the phone, internet or TV provider",
  medicare_insurance_scam: "Medicare, health or life insurance benefits, braces, test kits",
  family_emergency_scam: "a relative (or their lawyer) in trouble who needs money",
  prize_scam: "a prize, sweepstakes, free trip or grant that costs something to claim",
  loan_debt_scam: "loans, debt relief, student-loan forgiveness, credit repair",
  warranty_robocall: "a vehicle warranty or service contract",
  investment_scam: "crypto or other investments promising returns",
  charity_scam: "asks for a donation to a charity or cause it cannot show",
  job_scam: "a job offer that needs money, equipment or an app first",
  delivery_scam: "a parcel held until a fee is paid",
  phishing: "asks for codes, card, account or identity numbers without another story",
  payment_scam: "asks for gift cards, wires, crypto or cash without another story",
  robocall: "an unsolicited recorded message or menu",
  telemarketing: "a sales pitch without the signs of fraud",
  wangiri: "one ring or a silent call that baits a call-back",
  premium_rate: "a premium-rate number dialled or calling",
  suspicious_call: "signs of fraud that fit none of the above",
  legitimate: "an ordinary call",
  unknown: "nothing was heard",
} as const;

export type Category = keyof typeof CATEGORIES;
