// Share links, the owner's side: a password-protected public link to one call. The URL carries a
// random token (256 bits; looked up by its SHA-256, kept encrypted so the list can show the URL
// again); the password is generated here, returned only at creation and rotation, and stored only
// as a hash. Revoking stops the link at once; rotating gives a new password and ends the old one
// and every view unlocked with it. The public side is share-views.ts.
import { and, desc, eq } from "drizzle-orm";
import { callShares } from "../../../schema/sharing.ts";
import { randomToken, sha256Hex } from "../../lib/crypto.ts";
import { newId } from "../../lib/ids.ts";
import { hashPassword } from "../../lib/passwords.ts";
import { decryptSecret, encryptSecret } from "../../lib/secrets.ts";
import { addSeconds, nowIso } from "../../lib/time.ts";
import type { CreateShare } from "../../resources/shares.ts";
import { callOfAccount } from "../calls/records.ts";
import type { Services } from "../context.ts";
import { Conflict } from "../errors.ts";
import { owned, ownedRow } from "../owned.ts";
import { actingLabel, type Principal } from "../identity/principal.ts";

export type ShareRow = typeof callShares.$inferSelect;

/** Where the share page is served (worker/pages/share.ts). */
export const SHARE_PAGE_PATH = "/share";

/** No 0/O or 1/I: the password is often read out over the phone. */
const PASSWORD_ALPHABET = "ABCDEFGHJKLMNPQRSTUVWXYZ23456789";
const PASSWORD_GROUPS = 4;
const PASSWORD_GROUP_LENGTH = 4;

/** 16 characters of a 32-letter alphabet (80 bits), in groups of four: "K7QP-M2XD-9HRT-WA4C". */
export function generateSharePassword(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(PASSWORD_GROUPS * PASSWORD_GROUP_LENGTH));
  // 256 is a multiple of 32, so the low five bits of each byte pick a letter uniformly.
  const letters = [...bytes].map((b) => PASSWORD_ALPHABET[b & 31]!);
  const groups = [];
  for (let i = 0; i < letters.length; i += PASSWORD_GROUP_LENGTH) groups.push(letters.slice(i, i + PASSWORD_GROUP_LENGTH).join(""));
  return groups.join("-");
}

/** The form a password is hashed and checked in: case, spaces and dashes do not matter. */
export const canonicalSharePassword = (password: string) => password.toUpperCase().replace(/[^A-Z0-9]/g, "");

export const shareTokenHash = (token: string) => sha256Hex(token);
const tokenContext = (shareId: string) => `share:${shareId}:token`;

export const isExpired = (row: Pick<ShareRow, "expiresAt">, now = nowIso()) => row.expiresAt !== null && row.expiresAt <= now;
export const isActive = (row: Pick<ShareRow, "expiresAt" | "revokedAt">, now = nowIso()) => row.revokedAt === null && !isExpired(row, now);

async function shareOut(s: Services, row: ShareRow) {
  const token = await decryptSecret(s.config.ENCRYPTION_KEY, row.tokenEnc, tokenContext(row.id));
  return {
    id: row.id,
    call_id: row.callId,
    url: token ? new URL(`${SHARE_PAGE_PATH}/${token}`, s.origin).toString() : "",
    label: row.label,
    created_by: row.createdBy,
    created_at: row.createdAt,
    expires_at: row.expiresAt,
    revoked_at: row.revokedAt,
    last_viewed_at: row.lastViewedAt,
    view_count: row.viewCount,
    active: isActive(row),
  };
}

const hashSharePassword = (s: Services, password: string) =>
  hashPassword(canonicalSharePassword(password), s.config.PASSWORD_PBKDF2_ITERATIONS);

/** POST /calls/{id}/share: a new link and its password (shown this once). */
export async function createShare(s: Services, principal: Principal, callId: string, input: CreateShare) {
  const call = await callOfAccount(s, principal, callId);
  const id = newId();
  const token = randomToken(32);
  const password = generateSharePassword();
  const now = nowIso();
  const hours = input.expires_in_hours === undefined ? s.config.SHARE_DEFAULT_EXPIRES_HOURS : input.expires_in_hours;
  const row: ShareRow = {
    id,
    customerId: call.customerId,
    callId: call.id,
    tokenHash: await shareTokenHash(token),
    tokenEnc: await encryptSecret(s.config.ENCRYPTION_KEY, token, tokenContext(id)),
    passwordHash: await hashSharePassword(s, password),
    label: input.label ?? null,
    createdBy: actingLabel(principal),
    createdAt: now,
    expiresAt: hours === null ? null : addSeconds(now, hours * 3600),
    revokedAt: null,
    lastViewedAt: null,
    viewCount: 0,
  };
  await s.db.insert(callShares).values(row);
  return { ...(await shareOut(s, row)), password };
}

/** GET /calls/{id}/shares: the call's links, newest first, without passwords. */
export async function listShares(s: Services, principal: Principal, callId: string) {
  const call = await callOfAccount(s, principal, callId);
  const rows = await s.db
    .select()
    .from(callShares)
    .where(and(eq(callShares.customerId, call.customerId), eq(callShares.callId, call.id)))
    .orderBy(desc(callShares.createdAt), desc(callShares.id));
  return { items: await Promise.all(rows.map((row) => shareOut(s, row))) };
}

const shareOfAccount = (s: Services, principal: Principal, shareId: string) =>
  ownedRow(s.db, callShares, principal.customer.id, shareId, "Share link");

/** DELETE /calls/shares/{id}: the link stops opening at once (revoking twice keeps the first time). */
export async function revokeShare(s: Services, principal: Principal, shareId: string) {
  const row = await shareOfAccount(s, principal, shareId);
  if (row.revokedAt) return shareOut(s, row);
  const revokedAt = nowIso();
  await s.db
    .update(callShares)
    .set({ revokedAt })
    .where(owned(callShares, row.customerId, row.id));
  return shareOut(s, { ...row, revokedAt });
}

/** POST /calls/shares/{id}/rotate: a new password for an active link; the old one and its views end. */
export async function rotateShare(s: Services, principal: Principal, shareId: string) {
  const row = await shareOfAccount(s, principal, shareId);
  if (!isActive(row)) throw new Conflict("This link is revoked or expired");
  const password = generateSharePassword();
  const passwordHash = await hashSharePassword(s, password);
  await s.db
    .update(callShares)
    .set({ passwordHash })
    .where(owned(callShares, row.customerId, row.id));
  return { ...(await shareOut(s, { ...row, passwordHash })), password };
}
