// The verdict's words from the cues: red flags that quote what fired in the order it was said,
// keywords, and a one-sentence summary of why.
import type { Verdict } from "../analyser.ts";
import type { Observation } from "./observation.ts";
import { entityPhrase } from "./claims.ts";
import { CUE_KEYWORDS } from "./cues.ts";
import type { SentenceCue } from "./features.ts";
import { contributionOf, type Model } from "./model.ts";
import { CATEGORY_TITLES } from "./report.ts";
import { quoteOf } from "./transcript.ts";
import type { Evidence } from "./types.ts";

const MAX_FLAGS = 20;
const MAX_KEYWORDS = 30;
/** An allowed call still shows a cue this strong: it is worth a person's glance. */
const ALLOWED_FLAG_MIN_WEIGHT = 1.5;

/** How much a cue pushed towards fraud, as the model weighs it on this side of the call. */
function weightOf(model: Model, cue: SentenceCue): number {
  const side = cue.sentence.speaker === "callee" && !cue.family.startsWith("callee_") ? "callee_said" : "cue";
  return contributionOf(model, `${side}:${cue.family}`);
}

function quoteFor(cue: SentenceCue): string {
  const first = cue.match.trim().split(" ")[0] ?? "";
  return quoteOf(cue.sentence, Math.max(0, cue.sentence.lower.indexOf(first)));
}

/** The cues that argue for fraud, each once, in the order the call went; then the call's facts. */
export function cueFlagsOf(cues: SentenceCue[], facts: Evidence[], model: Model, flagged: boolean): string[] {
  const minWeight = flagged ? 1e-9 : ALLOWED_FLAG_MIN_WEIGHT;
  const shown = cues.filter((cue) => !cue.family.startsWith("genuine_") && weightOf(model, cue) >= minWeight);
  const lines = shown.map((cue) => {
    const who = cue.sentence.speaker === "callee" ? " (said by the callee)" : "";
    return `${cue.label}: "${quoteFor(cue)}"${who}`;
  });
  for (const e of facts.filter((f) => f.points > 0)) lines.push(`${e.label} (${e.detail ?? "from the call's facts"})`);
  return lines.slice(0, MAX_FLAGS).map((line, i) => `${i + 1}. ${line}`);
}

/** The families that argued for fraud, weightiest first, as words to search calls by, and the organisation claimed. */
export function cueKeywordsOf(cues: SentenceCue[], model: Model, entity: string | null): string[] {
  const ranked = cues.filter((c) => weightOf(model, c) > 0).sort((a, b) => weightOf(model, b) - weightOf(model, a));
  const words = ranked.map((c) => CUE_KEYWORDS[c.family]).filter((k): k is string => k !== null);
  return [...new Set([...(entity ? [entity.toLowerCase()] : []), ...words])].slice(0, MAX_KEYWORDS);
}

const list = (items: string[]) => (items.length <= 1 ? (items[0] ?? "") : `${items.slice(0, -1).join(", ")} and ${items.at(-1)}`);
const lowerFirst = (s: string) => s.charAt(0).toLowerCase() + s.slice(1);

export type CueSummaryInput = {
  seen: Observation;
  category: string;
  probability: number;
  recommendation: Verdict["recommendation"];
  english: boolean;
};

/** One sentence: what the call was and why it got its recommendation. */
export function cueSummaryOf({ seen, category, probability, recommendation, english }: CueSummaryInput): string {
  if (!seen.shape.heard) {
    const fact = seen.evidence.find((e) => !e.quote && e.points > 0);
    return fact
      ? `No speech was heard; ${lowerFirst(fact.label)} (${fact.detail}).`
      : "No speech was heard, and the call's facts show nothing unusual.";
  }
  const recorded = seen.features.families.has("robo_message") || seen.features.families.has("robo_opt_out");
  const subject =
    recorded || (seen.shape.calleeWords <= 3 && seen.sentences.some((s) => s.speaker === "caller"))
      ? "A recorded or one-sided message"
      : "A call";
  const claim = seen.claim && seen.claim.speaker !== "callee" ? ` claiming to be ${entityPhrase(seen.claim)}` : "";
  // The claim is said once, by name; the other families say what the caller did.
  const caller = seen.features.cues.filter(
    (c) => c.sentence.speaker !== "callee" && !/^(?:genuine_|callee_)/.test(c.family) && !(claim && c.family.startsWith("imp_")),
  );
  const actions = [...new Set(caller.map((c) => lowerFirst(c.label)))].slice(0, 3);
  const what = actions.length ? `${subject}${claim} that ${list(actions)}` : `${subject}${claim} with no fraud cue heard`;
  const reassuring = seen.features.cues.find((c) => c.family === "genuine_warning" && c.sentence.speaker !== "callee");
  const note =
    (reassuring ? `; reassuring: it ${lowerFirst(reassuring.label)}` : "") +
    (english ? "" : " (the speech does not look like English; the analyser reads English only)");
  if (recommendation === "allow")
    return `Allowed at ${probability}%: ${lowerFirst(what)}, without a scam's pretext and demand together${note}.`;
  const title = (CATEGORY_TITLES[category] ?? category.replace(/_/g, " ")).toLowerCase();
  const verb = recommendation === "block" ? "Blocked" : "Sent to review";
  return `${verb} as ${title} at ${probability}%: ${lowerFirst(what)}${note}.`;
}
