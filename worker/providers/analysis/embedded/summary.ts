// The verdict's prose: a summary of what the caller did, the TCPA comment, and the language.
import type { AnalysisInput, CallFacts } from "../analyser.ts";
import { entityPhrase } from "./claims.ts";
import { inNorthAmerica, type SpeechShape } from "./facts.ts";
import { ENGLISH_WORDS } from "./lexicon.ts";
import type { FiredCombo } from "./scoring.ts";
import { CATEGORY_TITLES } from "./report.ts";
import type { EntityClaim, Evidence, Family, Sentence } from "./types.ts";

const SUMMARY_MAX = 2000;
const ACTION_MIN_POINTS = 8;
/** Below this share of English function words a transcript of some length is not English. */
const ENGLISH_MIN_SHARE = 0.1;
const ENGLISH_MIN_WORDS = 6;

const ACTIONS: Partial<Record<Family, string>> = {
  tech_alarm: "says the computer is infected or hacked",
  account_alarm: "reports suspicious activity on the callee's account",
  threat: "threatens arrest, suspension or a cut-off",
  urgency: "pushes for immediate action",
  secrecy: "asks for secrecy",
  payment: "asks for money",
  fee: "wants a fee paid first",
  gift_card: "wants gift cards",
  crypto: "wants cryptocurrency",
  wire: "wants money moved, wired or collected",
  remote: "wants access to the computer",
  otp: "wants a one-time code",
  credential: "wants card, account or login details",
  robocall: "plays a recorded prompt",
  robo_topic: "pitches warranty, insurance or credit offers",
  refund: "tells a refund story",
  investment: "pitches an investment",
  prize: "announces a prize",
  delivery: "says a parcel is held",
  family: "says a relative is in trouble",
};

function shapeSentence(shape: SpeechShape, sentences: Sentence[]): string {
  if (!shape.heard) return "No speech was heard.";
  if (sentences.every((s) => s.speaker === "unknown")) return "A transcript without speaker labels.";
  if (shape.calleeWords <= 4) return "A one-sided message from the caller.";
  let turns = 0;
  sentences.forEach((s, i) => (turns += i === 0 || sentences[i - 1]?.speaker !== s.speaker ? 1 : 0));
  return `A conversation of ${turns} turns.`;
}

function actionsOf(evidence: Evidence[], side: "callee" | "caller"): string[] {
  const best = new Map<Family, number>();
  for (const e of evidence) {
    if ((e.speaker === "callee") !== (side === "callee") || e.points < ACTION_MIN_POINTS * (side === "callee" ? 0.5 : 1)) continue;
    best.set(e.family, Math.max(best.get(e.family) ?? 0, e.points));
  }
  return [...best]
    .filter(([family]) => ACTIONS[family])
    .sort((a, b) => b[1] - a[1])
    .map(([family]) => ACTIONS[family] as string);
}

function list(items: string[]): string {
  return items.length <= 1 ? (items[0] ?? "") : `${items.slice(0, -1).join(", ")} and ${items[items.length - 1]}`;
}

export type SummaryInput = {
  evidence: Evidence[];
  sentences: Sentence[];
  shape: SpeechShape;
  claim: EntityClaim | null;
  category: string;
  probability: number;
  english: boolean;
  combos: FiredCombo[];
};

export function summaryOf(input: SummaryInput): string {
  const { evidence, claim, category, probability } = input;
  const parts = [shapeSentence(input.shape, input.sentences)];
  if (claim)
    parts.push(
      claim.speaker === "callee"
        ? `The callee answers as ${entityPhrase(claim)}.`
        : `The caller says they speak for ${entityPhrase(claim)}.`,
    );
  const caller = actionsOf(evidence, "caller");
  if (caller.length) parts.push(`The caller ${list(caller)}.`);
  const callee = actionsOf(evidence, "callee");
  if (callee.length) parts.push(`On the callee's side: ${list(callee)}.`);
  if (input.combos.length && probability >= 30) parts.push(`Signals that combine: ${list(input.combos.map((c) => c.label))}.`);
  for (const e of evidence.filter((f) => !f.quote && f.detail && f.points > 0)) parts.push(`${e.label} (${e.detail}).`);
  const reassuring = [...new Set(evidence.filter((e) => e.points < 0).map((e) => e.label.toLowerCase()))];
  if (reassuring.length) parts.push(`Reassuring: ${list(reassuring)}.`);
  if (!input.english && input.shape.heard) parts.push("The speech does not look like English; the embedded rules read English only.");
  const title = CATEGORY_TITLES[category] ?? category;
  if (probability >= 30) parts.push(`Assessed as ${title.toLowerCase()} (fraud probability ${probability}%).`);
  else if (input.shape.heard) parts.push("No combination of fraud signals was found.");
  return parts.join(" ").slice(0, SUMMARY_MAX);
}

/** The TCPA and Canada's telemarketing rules cover North America only; elsewhere the comment says so. */
export function tcpaCommentOf(call: CallFacts, category: string, families: Map<Family, number>, probability: number): string | null {
  const northAmerica = inNorthAmerica(call);
  if (northAmerica === null) return null;
  if (!northAmerica) return "Not applicable: the call is outside North America.";
  const recorded = (families.get("robocall") ?? 0) >= 10;
  if (category === "wangiri" || category === "premium_rate") {
    return (
      "Not a telemarketing matter: one-ring and premium-rate call-back schemes are billing fraud (an FCC " +
      "consumer warning), not a TCPA consent question."
    );
  }
  if (recorded && probability >= 30) {
    return (
      "Prerecorded-voice call: the TCPA requires the called party's prior express consent (written consent " +
      "for telemarketing); this one carries fraud signals as well."
    );
  }
  if (recorded || category === "telemarketing") {
    return (
      "Prerecorded or telemarketing call: TCPA consent, calling-hours and Do-Not-Call rules apply; check " +
      "consent before allowing such campaigns."
    );
  }
  if (probability >= 30) {
    return (
      "A live call rather than a prerecorded one, so the TCPA's robocall consent rules are not the issue; " +
      "the content itself is the fraud concern."
    );
  }
  return "No TCPA concern: an ordinary live conversation, not a prerecorded or telemarketing call.";
}

/** The transcriber's language when it gave one; otherwise English unless the words clearly are not. */
export function languageOf(input: AnalysisInput, sentences: Sentence[]): string | null {
  const given = input.language?.trim().toLowerCase();
  if (given) return given === "english" || given.startsWith("en") ? "en" : given.slice(0, 20);
  const words = sentences.flatMap((s) => s.lower.match(/[a-z']+/g) ?? []);
  if (!words.length) return null;
  const share = words.filter((w) => ENGLISH_WORDS.has(w)).length / words.length;
  return words.length >= ENGLISH_MIN_WORDS && share < ENGLISH_MIN_SHARE ? null : "en";
}
