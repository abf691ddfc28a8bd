// From evidence to a probability and a category. A family adds one figure however often it is
// heard; the setting (authority, alarm, threats) counts in full only once the caller asks for
// something; combinations on the caller's side add bonuses; the callee's side adds no bonus.
import { KIND_CATEGORY } from "./lexicon.ts";
import type { EntityClaim, Evidence, Family } from "./types.ts";

const ASK_FAMILIES: Family[] = ["otp", "credential", "gift_card", "crypto", "wire", "remote", "payment", "fee"];
const PRESSURE: Family[] = ["threat", "urgency", "secrecy", "account_alarm", "tech_alarm"];
/** An ask counts as made once its family is worth this many points. */
const ASK_MADE = 10;
/** The setting of a call that asks for nothing counts at this share. */
const CONTEXT_WITHOUT_ASK = 0.5;
/** Points at which probability reaches 63%: probability = 100 × (1 − e^(−points / SCALE)). */
const SCALE = 60;
const MITIGATION_FLOOR = -30;

type Combo = { id: string; label: string; bonus: number; vote: string | null; needs: Family[][] };

const COMBOS: Combo[] = [
  {
    id: "authority_ask",
    label: "an organisation's name used to ask for money, codes or access",
    bonus: 20,
    vote: "claim",
    needs: [["authority"], ASK_FAMILIES],
  },
  { id: "pressure_ask", label: "pressure while asking", bonus: 15, vote: null, needs: [PRESSURE, ASK_FAMILIES] },
  { id: "secret_ask", label: "secrecy around the ask", bonus: 15, vote: null, needs: [["secrecy"], ASK_FAMILIES] },
  { id: "robocall_pitch", label: "a recorded sales pitch", bonus: 30, vote: "topic", needs: [["robocall"], ["robo_topic"]] },
  {
    id: "robocall_claim",
    label: "a recorded message claiming authority or alarm",
    bonus: 20,
    vote: "claim",
    needs: [["robocall"], ["authority", "threat", "account_alarm", "tech_alarm"]],
  },
  {
    id: "refund_ask",
    label: "a refund story that ends in an ask",
    bonus: 20,
    vote: "refund_scam",
    needs: [["refund"], ["remote", "wire", "gift_card", "crypto", "credential", "otp"]],
  },
  {
    id: "investment_push",
    label: "an investment pitch that wants money now",
    bonus: 15,
    vote: "investment_scam",
    needs: [["investment"], ["payment", "crypto", "wire", "urgency", "fee"]],
  },
  {
    id: "prize_fee",
    label: "a prize that costs money to claim",
    bonus: 20,
    vote: "prize_scam",
    needs: [["prize"], ["fee", "payment", "gift_card", "wire", "credential", "crypto"]],
  },
  {
    id: "delivery_fee",
    label: "a parcel that costs money to release",
    bonus: 18,
    vote: "delivery_scam",
    needs: [["delivery"], ["fee", "payment", "credential", "otp"]],
  },
  {
    id: "family_money",
    label: "a relative in trouble who needs money",
    bonus: 25,
    vote: "family_emergency_scam",
    needs: [["family"], ["payment", "wire", "gift_card", "crypto", "secrecy"]],
  },
];

export type FiredCombo = { id: string; label: string; points: number; vote: string | null };
export type Score = { points: number; probability: number; families: Map<Family, number>; combos: FiredCombo[] };

/** Each signal's best instance; a family is its best signal plus a quarter of the others, at most 1.5 times the best. */
export function familyPoints(evidence: Evidence[]): Map<Family, number> {
  const bySignal = new Map<string, Evidence>();
  for (const e of evidence) {
    const held = bySignal.get(e.id);
    if (!held || Math.abs(e.points) > Math.abs(held.points)) bySignal.set(e.id, e);
  }
  const lists = new Map<Family, number[]>();
  for (const e of bySignal.values()) lists.set(e.family, [...(lists.get(e.family) ?? []), e.points]);
  const families = new Map<Family, number>();
  for (const [family, points] of lists) {
    if (family === "mitigation") {
      families.set(
        family,
        Math.max(
          MITIGATION_FLOOR,
          points.reduce((a, b) => a + b, 0),
        ),
      );
      continue;
    }
    const sorted = points.sort((a, b) => b - a);
    const best = sorted[0] ?? 0;
    const rest = sorted.slice(1).reduce((a, b) => a + b, 0);
    families.set(family, Math.min(best * 1.5, best + rest / 4));
  }
  return families;
}

function groupStrength(families: Map<Family, number>, group: Family[]): number {
  const strengths = group.map((family) => {
    const points = families.get(family) ?? 0;
    if (ASK_FAMILIES.includes(family)) return points >= ASK_MADE ? Math.min(1, points / 15) : 0;
    return Math.min(1, points / 10);
  });
  return Math.max(0, ...strengths);
}

function firedCombos(families: Map<Family, number>): FiredCombo[] {
  const fired: FiredCombo[] = [];
  for (const combo of COMBOS) {
    const strength = Math.min(...combo.needs.map((group) => groupStrength(families, group)));
    if (strength > 0) fired.push({ id: combo.id, label: combo.label, points: combo.bonus * strength, vote: combo.vote });
  }
  return fired;
}

function sidePoints(families: Map<Family, number>): number {
  const asked = ASK_FAMILIES.some((family) => (families.get(family) ?? 0) >= ASK_MADE);
  // A recorded "press 1" is a robocall's ask: what it says around the prompt counts in full, the prompt itself does not.
  const prompted = (families.get("robocall") ?? 0) >= ASK_MADE;
  let points = 0;
  for (const [family, value] of families) {
    if (family === "mitigation") continue;
    const isSetting = !ASK_FAMILIES.includes(family) && family !== "facts";
    const full = !isSetting || asked || (prompted && family !== "robocall");
    points += full ? value : value * CONTEXT_WITHOUT_ASK;
  }
  return points;
}

export function score(evidence: Evidence[], heard: boolean): Score {
  const callerSide = familyPoints(evidence.filter((e) => e.speaker !== "callee" && e.family !== "mitigation"));
  const calleeSide = familyPoints(evidence.filter((e) => e.speaker === "callee" && e.family !== "mitigation"));
  const mitigation = familyPoints(evidence.filter((e) => e.family === "mitigation")).get("mitigation") ?? 0;
  const combos = firedCombos(callerSide);
  const points = sidePoints(callerSide) + sidePoints(calleeSide) + combos.reduce((a, c) => a + c.points, 0) + mitigation;
  const floor = heard || evidence.length ? 1 : 0;
  const probability = Math.min(99, Math.max(floor, Math.round(100 * (1 - Math.exp(-Math.max(0, points) / SCALE)))));
  const families = new Map(callerSide);
  for (const [family, value] of calleeSide) families.set(family, (families.get(family) ?? 0) + value);
  families.set("mitigation", mitigation);
  return { points, probability, families, combos };
}

function votesFor(evidence: Evidence[], combos: FiredCombo[], claim: EntityClaim | null): Map<string, number> {
  const votes = new Map<string, number>();
  const add = (category: string | null, points: number) => category && votes.set(category, (votes.get(category) ?? 0) + points);
  const bySignal = new Map<string, Evidence>();
  for (const e of evidence) if (e.hint && e.points > (bySignal.get(e.id)?.points ?? 0)) bySignal.set(e.id, e);
  for (const e of bySignal.values()) if (!e.id.startsWith("claim_") && !e.id.startsWith("reference_")) add(e.hint, e.points);
  if (claim)
    add(KIND_CATEGORY[claim.kind], Math.max(...[...bySignal.values()].filter((e) => e.family === "authority").map((e) => e.points), 0));
  const topic = [...bySignal.values()].filter((e) => e.family === "robo_topic").sort((a, b) => b.points - a.points)[0];
  for (const combo of combos) {
    if (combo.vote === "claim") add(claim ? KIND_CATEGORY[claim.kind] : null, combo.points);
    else if (combo.vote === "topic") add(topic?.hint ?? null, combo.points);
    else add(combo.vote, combo.points);
  }
  return votes;
}

function fallbackCategory(families: Map<Family, number>): string {
  const has = (...list: Family[]) => list.some((f) => (families.get(f) ?? 0) >= ASK_MADE);
  if (has("otp", "credential")) return "phishing";
  if (has("gift_card", "crypto", "wire", "payment", "fee")) return "payment_scam";
  if (has("robocall")) return "robocall";
  return "suspicious_call";
}

/** Medium risk and above takes the category most of the evidence points to; below it the call is ordinary. */
export function categorise(result: Score, evidence: Evidence[], claim: EntityClaim | null, heard: boolean): string {
  if (result.probability < 30) {
    if (!heard) return "unknown";
    const pitched = (result.families.get("robo_topic") ?? 0) > 0 && (result.families.get("robocall") ?? 0) > 0;
    return pitched ? "telemarketing" : "legitimate";
  }
  const votes = [...votesFor(evidence, result.combos, claim)].sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]));
  return votes[0]?.[0] ?? fallbackCategory(result.families);
}
