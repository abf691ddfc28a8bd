// Calls: the records, the calls up now, transfers of a live call, and the media (recording, captures).
import type { Api } from "../context.ts";
import { registerCallAnalysis } from "./analysis-routes.ts";
import { registerCallEvidence } from "./evidence-routes.ts";
import { registerLiveCalls } from "./live-routes.ts";
import { registerCallMedia } from "./media-routes.ts";
import { registerCalls } from "./routes.ts";

export function register(api: Api): void {
  registerCalls(api);
  registerCallMedia(api);
  registerCallEvidence(api);
  registerCallAnalysis(api);
  registerLiveCalls(api);
}
