// The web dialer's tokens: minted for a signed-in user of an account whose dialer is on, kept
// only as hashes, and spent by exactly one call's admission. The spend is one D1 statement that
// checks and marks the token at once (unknown, expired, spent, another account's or a dialer
// turned off since: nothing changes), so two INVITEs racing with one token admit one call.
import { and, eq, gt, isNull, lte, sql } from "drizzle-orm";
import { dialerTokenAccount } from "../../schema/dialer-token.ts";
import { customers } from "../../schema/identity.ts";
import { dialerSessions } from "../../schema/oauth.ts";
import { randomToken, sha256Hex } from "../lib/crypto.ts";
import { newId } from "../lib/ids.ts";
import { addSeconds, nowIso } from "../lib/time.ts";
import type { DialerSession } from "../resources/dialer.ts";
import type { Services } from "./context.ts";
import { Forbidden } from "./errors.ts";
import type { Principal } from "./principal.ts";

export async function mintDialerSession({ db, config }: Services, principal: Principal): Promise<DialerSession> {
  if (!principal.customer.dialerEnabled) throw new Forbidden("dialer_disabled");
  // Calls placed in an account's name are its own people's: not an administrator inside an impersonation, not an agent.
  if (principal.impersonatedBy) throw new Forbidden("impersonation_forbidden");
  if (principal.via === "connector") throw new Forbidden("connector_forbidden");
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
  });
  const url = new URL(config.DIALER_WS_URL);
  return {
    token,
    expires_at: expiresAt,
    expires_in: config.DIALER_TOKEN_TTL_SEC,
    websocket_url: config.DIALER_WS_URL,
    sip_domain: url.hostname.replace(/^\[|\]$/g, ""),
  };
}

/**
 * Spends a dialer token for the call `callId` of account `customerId`: true when the token is
 * that account's, unexpired and unspent, and the account's dialer is still on.
 */
export async function spendDialerToken({ db }: Services, token: string, customerId: string, callId: string): Promise<boolean> {
  if (dialerTokenAccount(token) !== customerId) return false;
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
    .returning({ id: dialerSessions.id })
    .get();
  return spent !== undefined;
}

/**
 * Tokens that lapsed unspent are of no use to anyone: removed at each cron tick. Spent ones stay,
 * since they say which user placed which call (the record names the account only).
 */
export async function sweepLapsedDialerTokens({ db }: Services, now: Date): Promise<void> {
  await db.delete(dialerSessions).where(and(isNull(dialerSessions.usedAt), lte(dialerSessions.expiresAt, now.toISOString())));
}
