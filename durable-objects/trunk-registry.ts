// TrunkRegistry: one global instance (idFromName("global")) that owns who holds which source
// range. Every whitelist change goes through it, and a Durable Object runs one call at a time,
// so the cross-account overlap check and the claim that follows it cannot interleave with
// another account's claim. It also numbers whitelist versions: every mutation bumps the
// version, and SIP nodes that hold a snapshot compare it to know when to fetch a new one.
//
// Ranges are 32-hex-digit addresses in IPv6 space (worker/lib/cidr.ts), so both families
// compare as text: two ranges overlap when each starts before the other ends.
//
// Proof of control (issue 20, finding 4): a claim is unproven until its account proves it
// receives packets in the range (or an administrator approves it). Another account may claim a
// range overlapping an unproven claim when it asks to contest it (the claim then waits for its own
// proof); never one overlapping a proven claim. Proving a claim displaces the other accounts' unproven
// claims it overlaps.
import { DurableObject } from "cloudflare:workers";

export type ClaimInput = {
  /** The whitelist entry's id; a claim is idempotent by it. */
  entryId: string;
  customerId: string;
  /** First and last address of the range, 32 lowercase hex digits each. */
  start: string;
  end: string;
  /** Claim over other accounts' unproven claims (contested: it waits for its own proof); else they refuse it. */
  contest?: boolean;
};

export type Claim = Omit<ClaimInput, "contest"> & { claimedAt: string; proven: boolean };

/**
 * Outcomes cross the RPC boundary as values, not exceptions: the caller decides what the client
 * sees. `contested`: another account holds an unproven claim overlapping this one.
 */
export type ClaimResult =
  { ok: true; version: number; contested: boolean } | { ok: false; reason: "overlap" } | { ok: false; reason: "invalid_range" };

/** Proving a claim: the other accounts' unproven claims it displaced, or why it cannot be proven. */
export type ProveResult =
  | { ok: true; version: number; displaced: { entryId: string; customerId: string }[] }
  | { ok: false; reason: "unknown_entry" | "proven_elsewhere" };

const HEX_ADDRESS = /^[0-9a-f]{32}$/;

type ClaimRow = { entry_id: string; customer_id: string; range_start: string; range_end: string; claimed_at: string; proven: number };

export class TrunkRegistry extends DurableObject {
  private readonly sql: SqlStorage;

  constructor(ctx: DurableObjectState, env: Cloudflare.Env) {
    super(ctx, env);
    this.sql = ctx.storage.sql;
    this.sql.exec(`
      CREATE TABLE IF NOT EXISTS state (
        id INTEGER PRIMARY KEY CHECK (id = 1),
        version INTEGER NOT NULL
      );
      INSERT OR IGNORE INTO state (id, version) VALUES (1, 0);
      CREATE TABLE IF NOT EXISTS claims (
        entry_id TEXT PRIMARY KEY,
        customer_id TEXT NOT NULL,
        range_start TEXT NOT NULL,
        range_end TEXT NOT NULL,
        claimed_at TEXT NOT NULL
      );
      CREATE INDEX IF NOT EXISTS claims_range_idx ON claims (range_start, range_end);
      CREATE INDEX IF NOT EXISTS claims_customer_idx ON claims (customer_id);
    `);
    const columns = this.sql.exec<{ name: string }>("PRAGMA table_info(claims)").toArray();
    if (!columns.some((c) => c.name === "proven")) this.sql.exec("ALTER TABLE claims ADD COLUMN proven INTEGER NOT NULL DEFAULT 0");
  }

  version(): number {
    return this.sql.exec<{ version: number }>("SELECT version FROM state WHERE id = 1").one().version;
  }

  /**
   * Takes a range for an entry unless a proven range held by another account overlaps it (an
   * unproven one makes the claim contested). Ranges of the same account may overlap (a /24 plus
   * sub-customer /32s with dial prefixes is normal). Claiming an entry id already held returns the
   * current version without a change.
   */
  claim(input: ClaimInput): ClaimResult {
    const { entryId, customerId, start, end } = input;
    if (!HEX_ADDRESS.test(start) || !HEX_ADDRESS.test(end) || start > end || !entryId || !customerId) {
      return { ok: false, reason: "invalid_range" };
    }
    const held = this.sql.exec<{ customer_id: string }>("SELECT customer_id FROM claims WHERE entry_id = ?", entryId).toArray()[0];
    if (held) {
      return held.customer_id === customerId
        ? { ok: true, version: this.version(), contested: this.othersOverlapping(customerId, start, end, false).length > 0 }
        : { ok: false, reason: "overlap" };
    }
    if (this.othersOverlapping(customerId, start, end, true).length > 0) return { ok: false, reason: "overlap" };
    const contested = this.othersOverlapping(customerId, start, end, false).length > 0;
    if (contested && !input.contest) return { ok: false, reason: "overlap" };

    return {
      ok: true,
      contested,
      version: this.mutate(() =>
        this.sql.exec(
          "INSERT INTO claims (entry_id, customer_id, range_start, range_end, claimed_at) VALUES (?, ?, ?, ?, ?)",
          entryId,
          customerId,
          start,
          end,
          new Date().toISOString(),
        ),
      ),
    };
  }

  /**
   * Marks an entry's claim proven and returns the other accounts' unproven claims overlapping it,
   * which it displaces (they stay claimed, for their owners to delete; they admit nothing). Refused
   * when another account has proven an overlapping range first.
   */
  prove(entryId: string): ProveResult {
    const row = this.sql.exec<ClaimRow>("SELECT * FROM claims WHERE entry_id = ?", entryId).toArray()[0];
    if (!row) return { ok: false, reason: "unknown_entry" };
    if (this.othersOverlapping(row.customer_id, row.range_start, row.range_end, true).length > 0) {
      return { ok: false, reason: "proven_elsewhere" };
    }
    const displaced = this.othersOverlapping(row.customer_id, row.range_start, row.range_end, false).map((r) => ({
      entryId: r.entry_id,
      customerId: r.customer_id,
    }));
    if (row.proven) return { ok: true, version: this.version(), displaced };
    return { ok: true, displaced, version: this.mutate(() => this.sql.exec("UPDATE claims SET proven = 1 WHERE entry_id = ?", entryId)) };
  }

  /** Claims of other accounts overlapping [start, end]: the proven ones, or the unproven ones. */
  private othersOverlapping(customerId: string, start: string, end: string, proven: boolean): ClaimRow[] {
    // The same predicate as overlaps() in schema/cidr.ts, answered by the range index.
    return this.sql
      .exec<ClaimRow>(
        "SELECT * FROM claims WHERE range_start <= ? AND range_end >= ? AND customer_id <> ? AND proven = ?",
        end,
        start,
        customerId,
        proven ? 1 : 0,
      )
      .toArray();
  }

  /** Frees an entry's range. Releasing an entry that holds nothing changes nothing. */
  release(entryId: string): { version: number } {
    const held = this.sql.exec("SELECT 1 FROM claims WHERE entry_id = ?", entryId).toArray().length > 0;
    if (!held) return { version: this.version() };
    return { version: this.mutate(() => this.sql.exec("DELETE FROM claims WHERE entry_id = ?", entryId)) };
  }

  /** Bumps the version for an in-place change of an entry (label, dial prefix, destination, enabled). */
  touch(): { version: number } {
    return { version: this.mutate(() => undefined) };
  }

  /** The ranges an account holds, in claim order (for reconciliation with D1 and for tests). */
  claimsOf(customerId: string): Claim[] {
    return this.sql
      .exec<ClaimRow>(
        "SELECT entry_id, customer_id, range_start, range_end, claimed_at, proven FROM claims WHERE customer_id = ? ORDER BY claimed_at, entry_id",
        customerId,
      )
      .toArray()
      .map((r) => ({
        entryId: r.entry_id,
        customerId: r.customer_id,
        start: r.range_start,
        end: r.range_end,
        claimedAt: r.claimed_at,
        proven: r.proven === 1,
      }));
  }

  /** Applies a change and bumps the version in one storage transaction; returns the new version. */
  private mutate(change: () => unknown): number {
    return this.ctx.storage.transactionSync(() => {
      change();
      this.sql.exec("UPDATE state SET version = version + 1 WHERE id = 1");
      return this.version();
    });
  }
}
