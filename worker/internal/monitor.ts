// Destination monitoring: the SIP nodes send OPTIONS to monitored destinations on an
// interval and report what they saw; the Worker keeps the latest state on each destination.
import { eq, inArray } from "drizzle-orm";
import type { MonitorResult } from "../../schema/node-api.ts";
import { destinations } from "../../schema/network.ts";
import type { Db } from "../lib/db.ts";

export async function monitorTargets(db: Db) {
  const rows = await db
    .select({ id: destinations.id, host: destinations.host, port: destinations.port, transport: destinations.transport })
    .from(destinations)
    .where(eq(destinations.monitorEnabled, true));
  return { destinations: rows };
}

/** Applies results; monitor_last_change_at moves only when the status changes. */
export async function recordMonitorResults(db: Db, results: MonitorResult[]): Promise<void> {
  // D1 binds at most 100 parameters a statement: look the destinations up in slices.
  for (let i = 0; i < results.length; i += 90) {
    const slice = results.slice(i, i + 90);
    const current = await db
      .select({ id: destinations.id, status: destinations.monitorStatus })
      .from(destinations)
      .where(inArray(destinations.id, slice.map((r) => r.destination_id)));
    const statusOf = new Map(current.map((r) => [r.id, r.status]));
    const writes = slice
      .filter((r) => statusOf.has(r.destination_id))
      .map((r) => db.update(destinations).set(monitorPatch(r, statusOf.get(r.destination_id)!)).where(eq(destinations.id, r.destination_id)));
    if (writes.length > 0) await db.batch(writes as [(typeof writes)[0], ...typeof writes]);
  }
}

export function monitorPatch(result: MonitorResult, previousStatus: string): Partial<typeof destinations.$inferSelect> {
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
