// From the model's probability and the cue families heard to a recommendation and a category.
// Block needs more than a high score: the fraud's core (someone impersonated or an offer made,
// with an ask or pressure) must have been heard, so an ordinary call that merely sounds like one
// is at worst sent to review, never blocked.
import type { Verdict } from "../analyser.ts";
import type { CueFamily } from "./cues.ts";

export const REVIEW_MIN = 50;
export const BLOCK_MIN = 90;

const has = (families: Set<CueFamily>, prefix: string) => [...families].some((f) => f.startsWith(prefix));

/** Demands no genuine caller makes: payment that cannot be recalled, access to a computer, a code, a threat of arrest. */
const STRONG_DEMANDS: CueFamily[] = ["ask_gift_card", "ask_wire", "ask_crypto", "ask_courier", "ask_remote", "ask_code", "pressure_legal"];

/** What the decision reads of a call: the cue families heard and whether both sides spoke. */
export type HeardCall = { families: Set<CueFamily>; conversation: boolean };

/**
 * The pattern of a scam, not just its words: a pretext (a claimed identity or an offer) with a
 * demand no genuine caller makes and pressure of another kind, or a recorded message (not a
 * conversation) that claims an identity or alarms and asks for a key press or a call back.
 */
export function fraudCoreHeard({ families, conversation }: HeardCall): boolean {
  // A caller that warns against the very asks of a scam, or speaks of a booked service, is not blocked.
  if (families.has("genuine_warning") || families.has("genuine_service")) return false;
  const pretext = has(families, "imp_") || has(families, "offer_");
  const demands = STRONG_DEMANDS.filter((f) => families.has(f));
  const pressures = [...families].filter((f) => f.startsWith("pressure_"));
  const recorded = !conversation && (families.has("robo_message") || families.has("robo_opt_out"));
  // The threat of arrest is a demand or a pressure, not both at once.
  const pressed = recorded || pressures.some((p) => demands.some((d) => d !== p));
  const prompt = families.has("ask_press") || families.has("ask_callback");
  const alarm = has(families, "imp_") || pressures.length > 0;
  return (pretext && demands.length > 0 && pressed) || (recorded && prompt && alarm);
}

export function recommendationOf(probability: number, heard: HeardCall): Verdict["recommendation"] {
  if (probability >= BLOCK_MIN && fraudCoreHeard(heard)) return "block";
  if (probability >= REVIEW_MIN) return "review";
  return "allow";
}

/**
 * The category, from the cue families: who was impersonated first, else what was offered, else
 * what was asked. The closed list is in docs/decisions/calls-and-analysis.md#one-list-of-categories-for-every-tier.
 */
export function cueCategory(families: Set<CueFamily>): string | null {
  const f = (family: CueFamily) => families.has(family);
  if (f("offer_refund") && (f("ask_remote") || f("imp_tech") || f("imp_retail"))) return "refund_scam";
  if (f("imp_relative") && (f("ask_wire") || f("ask_gift_card") || f("ask_courier") || f("ask_payment") || f("pressure_legal")))
    return "family_emergency_scam";
  if (f("imp_government")) return "government_impersonation";
  if (f("imp_tech") && (f("ask_remote") || f("pressure_account") || f("ask_press") || f("ask_callback"))) return "tech_support_scam";
  if (f("imp_retail")) return "retail_impersonation";
  if (f("imp_bank") && f("offer_loan")) return "credit_card_scam";
  if (f("imp_bank")) return "bank_impersonation";
  if (f("imp_utility")) return "utility_scam";
  if (f("imp_carrier")) return "carrier_impersonation";
  if (f("imp_health")) return "medicare_insurance_scam";
  if (f("imp_tech")) return "tech_support_scam";
  if (f("imp_charity")) return "charity_scam";
  if (f("offer_investment")) return "investment_scam";
  if (f("offer_job")) return "job_scam";
  if (f("offer_warranty")) return "warranty_robocall";
  if (f("offer_prize")) return "prize_scam";
  if (f("offer_loan")) return "loan_debt_scam";
  if (f("offer_refund")) return "refund_scam";
  if (f("ask_code") || f("ask_identity")) return "phishing";
  if (f("ask_gift_card") || f("ask_wire") || f("ask_crypto") || f("ask_courier") || f("ask_payment")) return "payment_scam";
  if (f("offer_deal")) return f("robo_message") || f("ask_press") ? "robocall" : "telemarketing";
  if (f("robo_message") || f("robo_opt_out") || f("ask_press")) return "robocall";
  return null;
}
