// What a file a SIP node handed over (stored in R2 under the call) changes in the call's record:
// a recording points the call at it and moves it into the analysis pipeline; a capture joins the
// call's list of captures; the SIP log changes nothing (its key is derived from the call). Run when
// the upload finds the record in D1, else by the call-records queue once the record is there.
import { eq, sql } from "drizzle-orm";
import type { MediaName } from "../../../schema/node-api.ts";
import { calls } from "../../../schema/calls.ts";
import { nowIso } from "../../lib/time.ts";
import { afterRecording } from "../analysis/pipeline.ts";
import type { Services } from "../context.ts";

export async function recordStoredMedia(s: Services, callId: string, name: MediaName, key: string): Promise<void> {
  if (name === "recording.wav") {
    await s.db.update(calls).set({ recordingWavPath: key, recordingAvailable: true, updatedAt: nowIso() }).where(eq(calls.id, callId));
    await afterRecording(s, callId);
  } else if (name === "caller.pcap" || name === "callee.pcap") {
    // One statement, so the caller's and the callee's uploads can race without losing either:
    // the key joins the list once, caller's capture first.
    const paths = sql`(SELECT json_group_array(value) FROM (
        SELECT value FROM (
          SELECT value FROM json_each(coalesce(${calls.recordingPcapPaths}, '[]')) UNION SELECT ${key}
        ) WHERE value IS NOT NULL
        ORDER BY CASE WHEN value LIKE '%/caller.pcap' THEN 0 WHEN value LIKE '%/callee.pcap' THEN 1 ELSE 2 END, value
      ))`;
    await s.db.update(calls).set({ recordingPcapPaths: paths, updatedAt: nowIso() }).where(eq(calls.id, callId));
  }
}
