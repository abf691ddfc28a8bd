// The analyser's corpus: scam scripts of many kinds and ordinary calls that mention the same things,
// turned into the AnalysisInput the pipeline would give an analyser.
import { dialogueInput } from "../../../../scripts/analyser/dialogue.ts";
import type { AnalysisInput } from "../../../../worker/providers/analysis/analyser.ts";
import { LEGIT_BUSINESS } from "./legit-business.ts";
import { LEGIT_MORE } from "./legit-more.ts";
import { LEGIT_PERSONAL } from "./legit-personal.ts";
import { SCAM_CONVERSATIONS } from "./scam-conversations.ts";
import { SCAM_MORE } from "./scam-more.ts";
import { SCAM_ROBOCALLS } from "./scam-robocalls.ts";
import type { CorpusEntry } from "./types.ts";

export type { CorpusEntry } from "./types.ts";

export const CORPUS: CorpusEntry[] = [
  ...SCAM_ROBOCALLS,
  ...SCAM_CONVERSATIONS,
  ...SCAM_MORE,
  ...LEGIT_BUSINESS,
  ...LEGIT_PERSONAL,
  ...LEGIT_MORE,
];

/** The entry as the pipeline would hand it to an analyser (a US call, answered for as long as its words take). */
export function inputOf(entry: Pick<CorpusEntry, "segments" | "call">): AnalysisInput {
  return dialogueInput(entry.segments, entry.call);
}
