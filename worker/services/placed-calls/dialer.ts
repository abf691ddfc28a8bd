// The web dialer's tokens: minted for a signed-in user of an account whose dialer is on, kept
// only as hashes, and spent by exactly one call's admission. The spend is one D1 statement that
// checks and marks the token at once (unknown, expired, spent, another account's or a dialer
// turned off since: nothing changes), so two INVITEs racing with one token admit one call.
import { and, eq, gt, isNull, lte, sql } from "drizzle-orm";
import { dialerTokenAccount } from "../../../schema/dialer-token.ts";
import { customers } from "../../../schema/identity.ts";
import { dialerSessions } from "../../../schema/oauth.ts";
import { randomToken, sha256Hex } from "../../lib/crypto.ts";
import { newId } from "../../lib/ids.ts";
import { addSeconds, nowIso } from "../../lib/time.ts";
import { normalizeNumber } from "../../../schema/numbers.ts";
import type { DialerSession, DialerSessionRequest } from "../../resources/dialer.ts";
import type { Services } from "../context.ts";
import { Forbidden, InvalidField } from "../errors.ts";
import type { Principal } from "../identity/principal.ts";
import { verifiedNumberOf } from "./verified-numbers.ts";

export async function mintDialerSession(s: Services, principal: Principal, input: DialerSessionRequest = {}): Promise<DialerSession> {
  const { db, config } = s;
  if (!principal.customer.dialerEnabled) throw new Forbidden("dialer_disabled");
  // Calls placed in an account's name are its own people's: not an administrator inside an impersonation, not an agent.
  if (principal.impersonatedBy) throw new Forbidden("impersonation_forbidden");
  if (principal.via === "connector") throw new Forbidden("connector_forbidden");
  // A caller ID is shown only when the account proved it holds the number (verified numbers).
  const callerId = input.caller_id ? normalizeNumber(input.caller_id) : null;
  if (callerId && !(await verifiedNumberOf(s, principal.customer.id, callerId))) {
    throw new InvalidField("caller_id", "caller_id_not_verified", "caller_id_not_verified");
  }
  const now = nowIso();
  const expiresAt = addSeconds(now, config.DIALER_TOKEN_TTL_SEC);
  const token = `${principal.customer.id}.${randomToken(32)}`;
  await db.insert(dialerSessions).values({
    id: newId(),
    tokenHash: await sha256Hex(token),
    customerId: principal.customer.id,
    userId: principal.user.id,
    createdAt: now,
    expiresAt,
    callerId,
  });
  const url = new URL(config.DIALER_WS_URL);
  return {
    token,
    expires_at: expiresAt,
    expires_in: config.DIALER_TOKEN_TTL_SEC,
    websocket_url: config.DIALER_WS_URL,
    sip_domain: url.hostname.replace(/^\[|\]$/g, ""),
    caller_id: callerId,
  };
}

/**
 * Spends a dialer token for the call `callId` of account `customerId`: the caller ID it was minted
 * with when the token is that account's, unexpired and unspent, and the account's dialer is still
 * on; null when it is refused.
 */
export async function spendDialerToken(
  { db }: Services,
  token: string,
  customerId: string,
  callId: string,
): Promise<{ callerId: string | null } | null> {
  if (dialerTokenAccount(token) !== customerId) return null;
  const now = nowIso();
  const spent = await db
    .update(dialerSessions)
    .set({ usedAt: now, callId })
    .where(
      and(
        eq(dialerSessions.tokenHash, await sha256Hex(token)),
        eq(dialerSessions.customerId, customerId),
        isNull(dialerSessions.usedAt),
        gt(dialerSessions.expiresAt, now),
        sql`EXISTS (SELECT 1 FROM ${customers} WHERE ${customers.id} = ${dialerSessions.customerId} AND ${customers.dialerEnabled} = 1)`,
      ),
    )
    .returning({ callerId: dialerSessions.callerId })
    .get();
  return spent ?? null;
}

/**
 * Tokens that lapsed unspent are of no use to anyone: removed at each cron tick. Spent ones stay,
 * since they say which user placed which call (the record names the account only).
 */
export async function sweepLapsedDialerTokens({ db }: Services, now: Date): Promise<void> {
  await db.delete(dialerSessions).where(and(isNull(dialerSessions.usedAt), lte(dialerSessions.expiresAt, now.toISOString())));
}
