// The lease a node holds on the calls it carries for the account (table node_leases): renewed by
// each sign of life (an admission, a report). When it lapses, or the node boots anew, the calls
// it carried are ended as node_lost, as of its last sign of life; so is a call its heartbeat no
// longer names.
import type { LiveCallTable } from "./live-calls.ts";
import type { CallSettlement } from "./settlement.ts";

type Lease = { node_id: string; boot_id: string; renewed_at: number };

export class NodeLeases {
  private readonly sql: SqlStorage;
  private readonly calls: Pick<LiveCallTable, "ofNode">;
  private readonly settlement: Pick<CallSettlement, "endLost">;

  constructor(sql: SqlStorage, calls: Pick<LiveCallTable, "ofNode">, settlement: Pick<CallSettlement, "endLost">) {
    this.sql = sql;
    this.calls = calls;
    this.settlement = settlement;
  }

  /** A sign of life from a node: its lease renewed; a new boot ends what the old one carried. */
  touch(nodeId: string, bootId: string, nowMs: number, leaseMs: number): void {
    const lease = this.sql.exec<Lease>("SELECT node_id, boot_id, renewed_at FROM node_leases WHERE node_id = ?", nodeId).toArray()[0];
    if (lease && lease.boot_id !== bootId) this.endCallsOf(lease);
    this.sql.exec(
      `INSERT INTO node_leases (node_id, boot_id, renewed_at, lease_ms) VALUES (?, ?, ?, ?)
       ON CONFLICT (node_id) DO UPDATE SET boot_id = excluded.boot_id, renewed_at = MAX(renewed_at, excluded.renewed_at), lease_ms = excluded.lease_ms`,
      nodeId,
      bootId,
      nowMs,
      leaseMs,
    );
  }

  /** Ends the calls of every node whose lease has lapsed, as of its last sign of life. */
  expire(nowMs: number): void {
    const lapsed = this.sql
      .exec<Lease>("SELECT node_id, boot_id, renewed_at FROM node_leases WHERE renewed_at + lease_ms <= ?", nowMs)
      .toArray();
    for (const lease of lapsed) this.endCallsOf(lease);
  }

  /** When the next lease of a node carrying calls lapses (ms), or null. */
  nextDeadline(): number | null {
    return (
      this.sql
        .exec<{ at: number | null }>(
          `SELECT MIN(l.renewed_at + l.lease_ms) AS at FROM node_leases l
           WHERE EXISTS (SELECT 1 FROM active_calls a WHERE a.node_id = l.node_id AND a.boot_id = l.boot_id)`,
        )
        .one().at ?? null
    );
  }

  /**
   * A heartbeat names every call its node carries for this account. A call of that node and boot it
   * does not name, admitted over a lease ago (time enough for its ticket to arrive), is carried by no
   * one: the node never got the ticket (its admission request failed after the ledger answered) or
   * dropped the call's end. Ended as node_lost now, its port is not held for as long as the node
   * lives; a real end reported later still replaces that end.
   */
  endUnlisted(nodeId: string, bootId: string, live: string[], nowMs: number, graceMs: number): void {
    const listed = new Set(live);
    const admittedBefore = new Date(nowMs - graceMs).toISOString();
    for (const row of this.calls.ofNode(nodeId, bootId, admittedBefore)) {
      if (!listed.has(row.call_id)) this.settlement.endLost(row, nowMs);
    }
  }

  private endCallsOf(lease: Lease): void {
    for (const row of this.calls.ofNode(lease.node_id, lease.boot_id)) this.settlement.endLost(row, lease.renewed_at);
  }
}
