// One OAuthGrant per consent (idFromName(grant id)): the only writer of the grant's refresh
// tokens. A Durable Object delivers no other call while this one awaits its own storage, so a
// rotation (check the presented token, replace it) and a revocation cannot interleave: two
// agents racing with one refresh token get one successor, and the loser's replay revokes the
// whole grant. D1 keeps the read model (oauth_grants) the portal lists; this object decides.
import { DurableObject } from "cloudflare:workers";

export type GrantRecord = {
  grantId: string;
  customerId: string;
  userId: string;
  clientId: string;
  scopes: string[];
  resource: string;
  createdAtMs: number;
};

type GrantState = GrantRecord & {
  /** SHA-256 hex of the one refresh token that may be spent now. */
  refreshHash: string;
  refreshExpiresAtMs: number;
  revokedAtMs: number | null;
  revokedReason: string | null;
};

export type RotateResult =
  | { ok: true; grant: GrantRecord }
  /** unknown: no such token; expired; revoked: the grant was revoked; replayed: a rotated token came back (the grant is now revoked). */
  | { ok: false; reason: "unknown" | "expired" | "revoked" | "replayed" };

export type GrantStatus = { active: boolean; grant: GrantRecord | null; revokedReason: string | null };

const STATE = "grant";
/** A revocation that came before the grant was started (its code replayed while the first exchange ran). */
const REVOKED_BEFORE_START = "revoked-before-start";
type EarlyRevocation = { atMs: number; reason: string };
const rotatedKey = (hash: string) => `rotated:${hash}`;

export class OAuthGrant extends DurableObject {
  /**
   * Stores a new grant with its first refresh token; a second call for the same grant changes
   * nothing. A grant revoked before it started is stored revoked. Says whether it stands.
   */
  async start(
    grant: GrantRecord,
    refreshHash: string,
    refreshExpiresAtMs: number,
  ): Promise<{ active: boolean; revokedReason: string | null }> {
    const existing = await this.ctx.storage.get<GrantState>(STATE);
    if (existing) return { active: existing.revokedAtMs === null, revokedReason: existing.revokedReason };
    const early = await this.ctx.storage.get<EarlyRevocation>(REVOKED_BEFORE_START);
    await this.ctx.storage.put<GrantState>(STATE, {
      ...grant,
      refreshHash,
      refreshExpiresAtMs,
      revokedAtMs: early?.atMs ?? null,
      revokedReason: early?.reason ?? null,
    });
    return { active: !early, revokedReason: early?.reason ?? null };
  }

  /**
   * Spends `presentedHash` for `nextHash`. A token rotated before (spent) revokes the grant: either
   * the agent or a thief replayed it, and nobody can tell which, so neither keeps the grant.
   */
  async rotate(clientId: string, presentedHash: string, nextHash: string, nextExpiresAtMs: number): Promise<RotateResult> {
    const state = await this.ctx.storage.get<GrantState>(STATE);
    // Another client's token is not this client's to spend, nor to burn by replaying it.
    if (!state || state.clientId !== clientId) return { ok: false, reason: "unknown" };
    if (state.revokedAtMs !== null) return { ok: false, reason: "revoked" };
    if (presentedHash !== state.refreshHash) {
      if (!(await this.ctx.storage.get<boolean>(rotatedKey(presentedHash)))) return { ok: false, reason: "unknown" };
      await this.ctx.storage.put<GrantState>(STATE, { ...state, revokedAtMs: Date.now(), revokedReason: "replay" });
      return { ok: false, reason: "replayed" };
    }
    if (state.refreshExpiresAtMs <= Date.now()) return { ok: false, reason: "expired" };
    await this.ctx.storage.put({
      [rotatedKey(presentedHash)]: true,
      [STATE]: { ...state, refreshHash: nextHash, refreshExpiresAtMs: nextExpiresAtMs },
    });
    return { ok: true, grant: recordOf(state) };
  }

  /** Ends the grant: its refresh token is refused and its access tokens stop working. Before its start: it will start revoked. */
  async revoke(reason: string): Promise<GrantRecord | null> {
    const state = await this.ctx.storage.get<GrantState>(STATE);
    if (!state) {
      if (!(await this.ctx.storage.get<EarlyRevocation>(REVOKED_BEFORE_START)))
        await this.ctx.storage.put<EarlyRevocation>(REVOKED_BEFORE_START, { atMs: Date.now(), reason });
      return null;
    }
    if (state.revokedAtMs === null)
      await this.ctx.storage.put<GrantState>(STATE, { ...state, revokedAtMs: Date.now(), revokedReason: reason });
    return recordOf(state);
  }

  /** Whether the grant still stands; asked on every request an access token of it makes. */
  async status(): Promise<GrantStatus> {
    const state = await this.ctx.storage.get<GrantState>(STATE);
    if (!state) return { active: false, grant: null, revokedReason: null };
    return { active: state.revokedAtMs === null, grant: recordOf(state), revokedReason: state.revokedReason };
  }

  /** The grant the refresh token whose hash this is belongs to, if it is the current one (RFC 7009 revocation). */
  async holdsRefresh(hash: string): Promise<boolean> {
    const state = await this.ctx.storage.get<GrantState>(STATE);
    return !!state && (state.refreshHash === hash || !!(await this.ctx.storage.get<boolean>(rotatedKey(hash))));
  }
}

const recordOf = (s: GrantState): GrantRecord => ({
  grantId: s.grantId,
  customerId: s.customerId,
  userId: s.userId,
  clientId: s.clientId,
  scopes: s.scopes,
  resource: s.resource,
  createdAtMs: s.createdAtMs,
});
