// Evidence from the call itself rather than its words: one-ring and silent calls, premium-rate
// numbers, a recorded monologue, digits keyed in on the callee's side, and what screening found
// before answer (../screening.ts).
import type { CallFacts } from "../analyser.ts";
import { screeningFactsOf } from "../screening.ts";
import { CALLBACK_BAIT_RANGES, NORTH_AMERICA, type NumberRange, PREMIUM_RANGES } from "./lexicon.ts";
import type { Evidence, Family } from "./types.ts";

const ONE_RING_MAX_SEC = 10;
const SILENT_ANSWER_MAX_SEC = 5;
const MONOLOGUE_MIN_WORDS = 25;
const MONOLOGUE_REPLY_MAX_WORDS = 4;
const KEYED_SECRET_MIN_DIGITS = 4;

/** International digits without "+" ("+44 20…", "0044…", "011 44…", "1 900…"), or null when the format is national or unknown. */
export function internationalDigits(raw: string | null): string | null {
  if (!raw) return null;
  const compact = raw.replace(/[\s().-]/g, "");
  if (/^\+\d{6,}$/.test(compact)) return compact.slice(1);
  if (/^00\d{6,}$/.test(compact)) return compact.slice(2);
  if (/^011\d{6,}$/.test(compact)) return compact.slice(3);
  if (/^1\d{10}$/.test(compact)) return compact;
  return null;
}

export function rangeOf(raw: string | null, ranges: NumberRange[]): NumberRange | null {
  const digits = internationalDigits(raw);
  if (!digits) return null;
  const matches = ranges.filter((r) => digits.startsWith(r.prefix));
  return matches.sort((a, b) => b.prefix.length - a.prefix.length)[0] ?? null;
}

/** True in the US, Canada and the rest of +1; null when the call's facts do not say. */
export function inNorthAmerica(call: CallFacts): boolean | null {
  if (call.destCountry) return NORTH_AMERICA.has(call.destCountry.trim().toLowerCase());
  const digits = internationalDigits(call.dialed) ?? internationalDigits(call.ani);
  return digits ? digits.startsWith("1") : null;
}

function fact(id: string, family: Family, points: number, label: string, detail: string, hint: string | null): Evidence {
  return { id, family, label, keyword: null, points, speaker: "caller", quote: null, detail, order: Number.MAX_SAFE_INTEGER, hint };
}

function calleeHungUp(call: CallFacts): boolean {
  return /callee|called|destination|dest/i.test(call.hangupBy ?? "");
}

function silenceEvidence(call: CallFacts): Evidence[] {
  const out: Evidence[] = [];
  const oneRing = !call.answered && call.durationSec !== null && call.durationSec <= ONE_RING_MAX_SEC && !calleeHungUp(call);
  const silent = call.answered && call.billsec !== null && call.billsec <= SILENT_ANSWER_MAX_SEC;
  if (oneRing) {
    const detail = `rang for ${call.durationSec} s and hung up before anyone answered`;
    out.push(fact("one_ring", "facts", 45, "One-ring call that baits a call-back", detail, "wangiri"));
  } else if (silent) {
    const detail = `answered, nothing said, over after ${call.billsec} s`;
    out.push(fact("silent_short", "facts", 40, "Very short call with no speech", detail, "wangiri"));
  }
  const bait = rangeOf(call.ani, CALLBACK_BAIT_RANGES);
  if (out.length && bait) {
    out.push(fact("bait_origin", "facts", 15, "Caller ID in a range used for call-back scams", `${call.ani}: ${bait.label}`, "wangiri"));
  }
  return out;
}

function premiumEvidence(call: CallFacts, heard: boolean): Evidence[] {
  const out: Evidence[] = [];
  const dialed = rangeOf(call.dialed, PREMIUM_RANGES);
  if (dialed) {
    out.push(fact("premium_dialed", "facts", 50, "Dialed number is premium-rate", `${call.dialed}: ${dialed.label}`, "premium_rate"));
    if (!heard && call.answered) {
      const detail = `answered, nothing said, ${call.billsec ?? 0} s billed`;
      out.push(fact("premium_silent", "facts", 15, "Silent call to a premium-rate number (traffic pumping)", detail, "premium_rate"));
    }
  }
  const ani = rangeOf(call.ani, PREMIUM_RANGES);
  if (ani) out.push(fact("premium_ani", "facts", 25, "Caller ID is a premium-rate number", `${call.ani}: ${ani.label}`, "premium_rate"));
  return out;
}

function dtmfEvidence(call: CallFacts, speech: Evidence[]): Evidence[] {
  const keyed = call.dtmf.filter((d) => d.channel === "callee");
  if (!keyed.length) return [];
  const asked = speech.some((e) => (e.family === "otp" || e.family === "credential") && e.speaker !== "callee" && e.points >= 10);
  const prompted = speech.some((e) => e.id === "press_digit" && e.speaker !== "callee");
  const out: Evidence[] = [];
  if (asked && keyed.length >= KEYED_SECRET_MIN_DIGITS) {
    // The digits themselves stay out of the verdict: they may be a card number or a code.
    const detail = `${keyed.length} digits keyed in after the ask`;
    out.push(fact("dtmf_secret", "otp", 20, "Callee keyed in digits after being asked for a code or card details", detail, null));
  } else if (prompted) {
    const detail = `pressed ${keyed[0]?.digit} at the prompt`;
    out.push(fact("dtmf_prompt", "robocall", 6, "Callee pressed a key at the recorded prompt", detail, "robocall"));
  }
  return out;
}

/** Screening's facts are evidence like the others; their ids say so, for the red flags to list them first. */
const SCREENING_ID = "screening:";
export const isScreeningEvidence = (e: Evidence) => e.id.startsWith(SCREENING_ID);

function screeningEvidence(call: CallFacts): Evidence[] {
  return screeningFactsOf(call).map((f) => fact(`${SCREENING_ID}${f.id}`, "facts", f.points, f.label, f.detail, null));
}

export type SpeechShape = { heard: boolean; callerWords: number; calleeWords: number };

export function factEvidenceOf(call: CallFacts, shape: SpeechShape, speech: Evidence[]): Evidence[] {
  const out = [...premiumEvidence(call, shape.heard), ...dtmfEvidence(call, speech)];
  if (!shape.heard) out.push(...silenceEvidence(call));
  if (shape.callerWords >= MONOLOGUE_MIN_WORDS && shape.calleeWords <= MONOLOGUE_REPLY_MAX_WORDS) {
    const detail = `the caller spoke ${shape.callerWords} words, the callee ${shape.calleeWords}`;
    out.push(fact("monologue", "facts", 5, "One-sided message the callee hardly answered", detail, "robocall"));
  }
  out.push(...screeningEvidence(call));
  return out;
}
