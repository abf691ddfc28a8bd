// One transcript of the analyser's corpus: written for the purpose, labelled by hand.
import type { CallFacts } from "../../../../worker/providers/analysis/analyser.ts";

export type CorpusEntry = {
  id: string;
  label: "scam" | "legit";
  description: string;
  segments: { speaker: "caller" | "callee"; text: string }[];
  call?: Partial<CallFacts>;
};
