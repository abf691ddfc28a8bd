// What the embedded analyser observes of a call before it decides (../embedded.ts, observe): the
// shape the decision, the report and training read alike.
import type { SpeechShape } from "./facts.ts";
import type { CallFeatures } from "./features.ts";
import type { EntityClaim, Evidence, Sentence } from "./types.ts";

/** Everything the analyser observes of a call before deciding: what training reads too. */
export type Observation = {
  sentences: Sentence[];
  shape: SpeechShape;
  claim: EntityClaim | null;
  evidence: Evidence[];
  features: CallFeatures;
};
