// The verdict's words: title, red flags that quote what was heard, keywords, who the caller
// claims to be, and the recommendation.
import { entityPhrase } from "./claims.ts";
import type { EntityClaim, Evidence, Family } from "./types.ts";

const MAX_FLAGS = 20;
const MAX_KEYWORDS = 30;
/** Below medium risk only the weightier signals are worth a flag. */
const FLAG_MIN_POINTS = { risky: 5, ordinary: 12 };

export const CATEGORY_TITLES: Record<string, string> = {
  legitimate: "Ordinary call",
  unknown: "Nothing heard",
  telemarketing: "Telemarketing call",
  robocall: "Robocall",
  tech_support_scam: "Tech-support scam",
  refund_scam: "Refund scam",
  government_impersonation: "Government impersonation",
  bank_impersonation: "Bank impersonation",
  credit_card_scam: "Credit-card scam",
  carrier_impersonation: "Mobile-carrier impersonation",
  delivery_scam: "Delivery-fee scam",
  utility_scam: "Utility disconnection scam",
  investment_scam: "Investment scam",
  prize_scam: "Prize scam",
  family_emergency_scam: "Family-emergency scam",
  warranty_robocall: "Warranty or insurance robocall",
  wangiri: "One-ring (wangiri) call",
  premium_rate: "Premium-rate number",
  phishing: "Phishing for codes or card details",
  payment_scam: "Payment scam",
  suspicious_call: "Suspicious call",
  retail_impersonation: "Retailer impersonation",
  medicare_insurance_scam: "Medicare or health-insurance scam",
  loan_debt_scam: "Loan or debt-relief scam",
  charity_scam: "Charity scam",
  job_scam: "Job scam",
};

export function titleOf(category: string, claim: EntityClaim | null): string {
  const title = CATEGORY_TITLES[category] ?? category.replace(/_/g, " ");
  if (!claim) return title;
  if (category === "legitimate") return `${title} (${claim.name})`;
  if (category === "unknown" || category === "wangiri" || category === "premium_rate") return title;
  return `${title} posing as ${claim.name}`;
}

function flagText(index: number, e: Evidence): string {
  if (!e.quote) return `${index}. ${e.label} (${e.detail ?? "from the call's facts"})`;
  const who = e.speaker === "callee" ? " (said by the callee)" : "";
  return `${index}. ${e.label}: "${e.quote}"${who}`;
}

/** One flag per signal, its weightiest instance, in the order the call went. */
export function redFlagsOf(evidence: Evidence[], probability: number): string[] {
  const min = probability >= 30 ? FLAG_MIN_POINTS.risky : FLAG_MIN_POINTS.ordinary;
  const best = new Map<string, Evidence>();
  for (const e of evidence) {
    if (e.points < min) continue;
    const held = best.get(e.id);
    if (!held || e.points > held.points) best.set(e.id, e);
  }
  const all = [...best.values()];
  // "Mentions gift cards" adds nothing beside "Wants payment in gift cards" quoting the same words.
  const useful = all.filter((e) => e.family !== "mention" || !all.some((o) => o !== e && o.quote === e.quote));
  const kept = useful.sort((a, b) => b.points - a.points || a.order - b.order).slice(0, MAX_FLAGS);
  return kept.sort((a, b) => a.order - b.order || b.points - a.points || a.id.localeCompare(b.id)).map((e, i) => flagText(i + 1, e));
}

export function keywordsOf(evidence: Evidence[]): string[] {
  const ranked = [...evidence].filter((e) => e.keyword && e.points > 0).sort((a, b) => b.points - a.points || a.order - b.order);
  return [...new Set(ranked.map((e) => e.keyword as string))].slice(0, MAX_KEYWORDS);
}

export function callerIdentityOf(name: string | null, claim: EntityClaim | null, families: Map<Family, number>): string | null {
  const claimed = claim && claim.speaker !== "callee" ? entityPhrase(claim) : null;
  if (name && claimed) return `${name}, ${claimed}`;
  if (name) return name;
  if (claimed) return `Someone claiming to be ${claimed}`;
  if ((families.get("family") ?? 0) >= 10) return "Someone claiming to be a relative";
  if ((families.get("robocall") ?? 0) >= 10) return "A recorded voice";
  return null;
}
