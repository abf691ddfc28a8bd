// A recorded call analysed when the account asks (POST /calls/{id}/analyze), beside the automatic
// analysis the pipeline starts once a recording is stored (./pipeline.ts).
import { and, notInArray } from "drizzle-orm";
import { calls } from "../../../schema/calls.ts";
import { nowIso } from "../../lib/time.ts";
import { callOfAccount } from "../calls/records.ts";
import type { Services } from "../context.ts";
import { Conflict, PaymentRequired } from "../errors.ts";
import type { Principal } from "../identity/principal.ts";
import { owned } from "../owned.ts";
import { enqueue, setStatuses } from "./pipeline.ts";

/**
 * POST /calls/{id}/analyze: a recorded call analysed now, with the account's tier as it is now
 * (automatic analysis keeps the tier the call started with) and at that tier's fee.
 */
export async function analyseOnDemand(s: Services, principal: Principal, callId: string) {
  const call = await callOfAccount(s, principal, callId);
  if (!call.recordingAvailable || call.processing === "relay_only") throw new Conflict("relay_only");
  // One job at a time per call: a double click must not charge twice.
  const claimed = await s.db
    .update(calls)
    .set({ analysisStatus: "queued", updatedAt: nowIso() })
    .where(and(owned(calls, principal.customer.id, call.id), notInArray(calls.analysisStatus, ["queued", "running"])))
    .returning({ id: calls.id })
    .get();
  if (!claimed) throw new Conflict("analysis_in_progress");
  const jobId = await enqueue(s, call, principal.customer.aiMode, "on_demand");
  if (!jobId) {
    await setStatuses(s, call.id, call.transcriptStatus, call.analysisStatus);
    throw new PaymentRequired("The balance does not cover the analysis fee");
  }
  return { job_id: jobId, analysis_status: "queued" };
}
