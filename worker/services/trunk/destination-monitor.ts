// Destination monitoring: the SIP nodes send OPTIONS to monitored destinations on an interval
// and report what they saw, and a customer can ask for one check now; the destination keeps
// the latest state in its monitor_* fields.
import { eq, inArray } from "drizzle-orm";
import type { MonitorResult } from "../../../schema/node-api.ts";
import { destinations } from "../../../schema/network.ts";
import { d1Chunks, runBatch } from "../../lib/db.ts";
import { nowIso } from "../../lib/time.ts";
import type { Services } from "../context.ts";
import { destinationOfAccount, destinationOut, type DestinationRow } from "./destinations.ts";
import type { Principal } from "../identity/principal.ts";

export const CHECK_TIMEOUT_MS = 4_000;

const WHY: Record<string, string> = {
  no_node: "no SIP node is connected to send the check",
  timeout: `the SIP node did not report within ${CHECK_TIMEOUT_MS / 1000} s`,
};

export async function monitorTargets({ db }: Services) {
  const rows = await db
    .select({ id: destinations.id, host: destinations.host, port: destinations.port, transport: destinations.transport })
    .from(destinations)
    .where(eq(destinations.monitorEnabled, true));
  return { destinations: rows };
}

/** Applies results; monitor_last_change_at moves only when the status changes. */
export async function recordMonitorResults({ db }: Services, results: MonitorResult[]): Promise<void> {
  for (const slice of d1Chunks(results)) {
    const current = await db
      .select({ id: destinations.id, status: destinations.monitorStatus })
      .from(destinations)
      .where(
        inArray(
          destinations.id,
          slice.map((r) => r.destination_id),
        ),
      );
    const statusOf = new Map(current.map((r) => [r.id, r.status]));
    const writes = slice
      .filter((r) => statusOf.has(r.destination_id))
      .map((r) =>
        db
          .update(destinations)
          .set(monitorPatch(r, statusOf.get(r.destination_id)!))
          .where(eq(destinations.id, r.destination_id)),
      );
    await runBatch(db, writes);
  }
}

function monitorPatch(result: MonitorResult, previousStatus: string): Partial<DestinationRow> {
  return {
    monitorStatus: result.status,
    // Supported once it has answered an OPTIONS at all; a miss says nothing about that.
    ...(result.code !== null ? { monitorSupported: true } : {}),
    monitorLastCheckAt: result.at,
    monitorRttMs: result.rtt_ms,
    monitorLastCode: result.code,
    monitorLastError: result.error,
    ...(previousStatus !== result.status ? { monitorLastChangeAt: result.at } : {}),
  };
}

/** One SIP OPTIONS sent now by a connected SIP node, waited for a few seconds at most. */
export async function checkDestination(s: Services, principal: Principal, destinationId: string) {
  const row = await destinationOfAccount(s, principal.customer.id, destinationId);
  const outcome = await s.hub.command({ type: "options", host: row.host, port: row.port, transport: row.transport }, CHECK_TIMEOUT_MS);
  const at = nowIso();
  let patch: Partial<DestinationRow>;
  if (!outcome.ok) {
    // Nothing was learnt about the destination itself: its status stays, the reason is shown.
    patch = { monitorLastCheckAt: at, monitorLastError: WHY[outcome.error] ?? outcome.error };
  } else {
    const code = typeof outcome.result.code === "number" ? outcome.result.code : null;
    const rtt = typeof outcome.result.rtt_ms === "number" ? outcome.result.rtt_ms : null;
    const error = typeof outcome.result.error === "string" ? outcome.result.error : null;
    // Any SIP answer, even 404 or 405, shows the endpoint is alive.
    const status = code !== null ? "up" : "down";
    patch = monitorPatch({ destination_id: row.id, status, at, rtt_ms: rtt, code, error }, row.monitorStatus);
    // A destination that answers for the first time has monitoring switched on.
    if (code !== null && row.monitorSupported !== true) patch.monitorEnabled = true;
  }
  patch.updatedAt = at;
  await s.db.update(destinations).set(patch).where(eq(destinations.id, row.id));
  return destinationOut(s, { ...row, ...patch });
}
