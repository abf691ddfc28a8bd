// Share links, the public side: what a person holding the link (and, past meta, its password)
// may see. Unlock trades the password for a short-lived view token bound to that one link and
// password; the payload and the recording answer only to it, and only while the link is active.
// Password attempts are throttled per link and per source address, successes included, counted
// before the password is checked so a parallel burst cannot slip past the limit.
import { and, desc, eq, sql } from "drizzle-orm";
import { calls, transcripts } from "../../../schema/calls.ts";
import { customers } from "../../../schema/identity.ts";
import { callShares } from "../../../schema/sharing.ts";
import type { ByteRange } from "../../lib/http-range.ts";
import { dummyHash, verifyPassword } from "../../lib/passwords.ts";
import { signShareViewToken, verifyShareViewToken } from "../../lib/share-tokens.ts";
import { nowIso } from "../../lib/time.ts";
import { newestAnalysis } from "../calls/records.ts";
import { callRecording, type MediaFile } from "../calls/media.ts";
import type { Services } from "../context.ts";
import { NotFound, TooManyRequests, Unauthenticated } from "../errors.ts";
import { owned } from "../owned.ts";
import { canonicalSharePassword, isActive, isExpired, shareTokenHash, type ShareRow } from "./shares.ts";
import { sourceKey } from "../identity/sign-in-throttle.ts";

const INVALID = "Invalid link or password";
const GONE = "This link is no longer available";

async function shareByToken(s: Services, token: string): Promise<ShareRow | null> {
  const row = await s.db
    .select()
    .from(callShares)
    .where(eq(callShares.tokenHash, await shareTokenHash(token)))
    .get();
  return row ?? null;
}

async function companyOf(s: Services, customerId: string): Promise<string | null> {
  const row = await s.db.select({ company: customers.company }).from(customers).where(eq(customers.id, customerId)).get();
  return row?.company ?? null;
}

/** GET /public/shares/{token}/meta: whether the link opens, and who shared it; never an error. */
export async function shareMeta(s: Services, token: string) {
  const row = await shareByToken(s, token);
  if (!row) return { exists: false, requires_password: true, revoked: false, expired: false, company_name: null };
  return {
    exists: true,
    requires_password: true,
    revoked: row.revokedAt !== null,
    expired: isExpired(row),
    company_name: await companyOf(s, row.customerId),
  };
}

async function admitUnlockAttempt(s: Services, token: string, ip: string): Promise<void> {
  const { config } = s;
  const verdicts = await Promise.all([
    s.limiter(`share-unlock-link:${await shareTokenHash(token)}`).hit(config.SHARE_UNLOCK_MAX_PER_LINK, config.SHARE_UNLOCK_WINDOW_SEC),
    s.limiter(`share-unlock-ip:${sourceKey(ip)}`).hit(config.SHARE_UNLOCK_MAX_PER_IP, config.SHARE_UNLOCK_WINDOW_SEC),
  ]);
  const refused = verdicts.filter((v) => !v.allowed);
  if (refused.length) throw new TooManyRequests("too_many_attempts", Math.max(...refused.map((v) => v.retryAfterSec)));
}

/**
 * POST /public/shares/{token}/unlock. An unknown, revoked or expired link answers exactly as a
 * wrong password does, after the same hashing work, so the answer tells nothing about the link.
 */
export async function unlockShare(s: Services, token: string, password: string, ip: string) {
  await admitUnlockAttempt(s, token, ip);
  const row = await shareByToken(s, token);
  const usable = row !== null && isActive(row);
  const matches = await verifyPassword(
    canonicalSharePassword(password),
    usable ? row.passwordHash : dummyHash(s.config.PASSWORD_PBKDF2_ITERATIONS),
  );
  if (!usable || !matches) throw new Unauthenticated(INVALID);
  const ttl = s.config.SHARE_VIEW_TOKEN_TTL_SEC;
  return { view_token: await signShareViewToken(row.id, row.passwordHash, s.config.JWT_SECRET, ttl), expires_in: ttl };
}

/** The link and its call, for a request carrying a view token: 401 without a valid one, 404 once the link is gone. */
async function viewedShare(s: Services, token: string, viewToken: string | undefined) {
  const row = await shareByToken(s, token);
  if (!row) throw new Unauthenticated(INVALID);
  if (!isActive(row)) throw new NotFound(GONE);
  if (!viewToken || !(await verifyShareViewToken(viewToken, row, s.config.JWT_SECRET))) throw new Unauthenticated(INVALID);
  const call = await s.db
    .select()
    .from(calls)
    .where(owned(calls, row.customerId, row.callId))
    .get();
  if (!call) throw new NotFound(GONE);
  return { row, call };
}

/** GET /public/shares/{token}: only what the spec lists for the public payload; counts a view. */
export async function viewShare(s: Services, token: string, viewToken: string | undefined) {
  const { row, call } = await viewedShare(s, token, viewToken);
  const [analysis, transcript, company] = await Promise.all([
    newestAnalysis(s.db, call),
    s.db
      .select({ text: transcripts.text, segments: transcripts.segments })
      .from(transcripts)
      .where(and(eq(transcripts.callId, call.id), eq(transcripts.customerId, call.customerId)))
      .orderBy(desc(transcripts.createdAt), desc(transcripts.id))
      .limit(1)
      .get(),
    companyOf(s, row.customerId),
  ]);
  await s.db
    .update(callShares)
    .set({ viewCount: sql`${callShares.viewCount} + 1`, lastViewedAt: nowIso() })
    .where(owned(callShares, row.customerId, row.id));
  return {
    shared_by: company,
    shared_at: row.createdAt,
    label: row.label,
    expires_at: row.expiresAt,
    call: {
      dialed: call.dialed,
      ani: call.ani,
      direction: call.direction,
      started_at: call.startedAt,
      duration_sec: call.durationSec,
    },
    analysis: analysis
      ? {
          title: analysis.title,
          probability: analysis.probability,
          category: analysis.category,
          entity: analysis.entity,
          red_flags: analysis.redFlags,
          tcpa_comment: analysis.tcpaComment,
          summary: analysis.summary,
          recommendation: analysis.recommendation,
        }
      : null,
    transcript: transcript ? { text: transcript.text ?? "", segments: transcript.segments ?? null } : null,
    has_recording: call.recordingAvailable && call.recordingWavPath !== null,
  };
}

/** GET /public/shares/{token}/recording: the shared call's recording, whole or one byte range. */
export async function shareRecording(
  s: Services,
  token: string,
  viewToken: string | undefined,
  pickRange?: (size: number) => ByteRange | "unsatisfiable" | null,
): Promise<MediaFile> {
  const { call } = await viewedShare(s, token, viewToken);
  return callRecording(s, call, pickRange);
}
