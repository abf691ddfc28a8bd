// TrunkRegistry: one global instance (idFromName("global")) that owns who holds which source
// range. Every whitelist change goes through it, and a Durable Object runs one call at a time,
// so the cross-account overlap check and the claim that follows it cannot interleave with
// another account's claim. It also numbers whitelist versions: every mutation bumps the
// version, and SIP nodes that hold a snapshot compare it to know when to fetch a new one.
//
// Ranges are 32-hex-digit addresses in IPv6 space (worker/lib/cidr.ts), so both families
// compare as text: two ranges overlap when each starts before the other ends.
import { DurableObject } from "cloudflare:workers";

export type ClaimInput = {
  /** The whitelist entry's id; a claim is idempotent by it. */
  entryId: string;
  customerId: string;
  /** First and last address of the range, 32 lowercase hex digits each. */
  start: string;
  end: string;
};

export type Claim = ClaimInput & { claimedAt: string };

/** Outcomes cross the RPC boundary as values, not exceptions: the caller decides what the client sees. */
export type ClaimResult = { ok: true; version: number } | { ok: false; reason: "overlap" } | { ok: false; reason: "invalid_range" };

const HEX_ADDRESS = /^[0-9a-f]{32}$/;

type ClaimRow = { entry_id: string; customer_id: string; range_start: string; range_end: string; claimed_at: string };

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
  }

  version(): number {
    return this.sql.exec<{ version: number }>("SELECT version FROM state WHERE id = 1").one().version;
  }

  /**
   * Takes a range for an entry unless a range held by another account overlaps it. Ranges of
   * the same account may overlap (a /24 plus sub-customer /32s with dial prefixes is normal).
   * Claiming an entry id already held returns the current version without a change.
   */
  claim(input: ClaimInput): ClaimResult {
    const { entryId, customerId, start, end } = input;
    if (!HEX_ADDRESS.test(start) || !HEX_ADDRESS.test(end) || start > end || !entryId || !customerId) {
      return { ok: false, reason: "invalid_range" };
    }
    const held = this.sql.exec<{ customer_id: string }>("SELECT customer_id FROM claims WHERE entry_id = ?", entryId).toArray()[0];
    if (held) return held.customer_id === customerId ? { ok: true, version: this.version() } : { ok: false, reason: "overlap" };

    // The same predicate as overlaps() in worker/lib/cidr.ts, answered by the range index.
    const clash = this.sql
      .exec("SELECT 1 FROM claims WHERE range_start <= ? AND range_end >= ? AND customer_id <> ? LIMIT 1", end, start, customerId)
      .toArray();
    if (clash.length > 0) return { ok: false, reason: "overlap" };

    return {
      ok: true,
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
        "SELECT entry_id, customer_id, range_start, range_end, claimed_at FROM claims WHERE customer_id = ? ORDER BY claimed_at, entry_id",
        customerId,
      )
      .toArray()
      .map((r) => ({ entryId: r.entry_id, customerId: r.customer_id, start: r.range_start, end: r.range_end, claimedAt: r.claimed_at }));
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
