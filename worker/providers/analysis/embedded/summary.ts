// The verdict's TCPA comment and the transcript's language (the summary is cue-report.ts's).
import type { AnalysisInput, CallFacts } from "../analyser.ts";
import { inNorthAmerica } from "./facts.ts";
import { ENGLISH_WORDS } from "./lexicon.ts";
import type { Family, Sentence } from "./types.ts";

/** Below this share of English function words a transcript of some length is not English. */
const ENGLISH_MIN_SHARE = 0.1;
const ENGLISH_MIN_WORDS = 6;

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
