// Verified caller IDs (our extension): numbers an account has proven it answers. Adding one makes
// the platform call it (a test call of purpose "verify") and speak a six-digit code; the owner
// enters the code here. The call goes out through the platform's own route (VERIFY_ROUTE), never
// an account's destination, and leaves no call record, recording or transcript: the only way to the
// code is to answer the number. Only an HMAC of the code is kept, good for ten minutes and five
// wrong tries; calls to one number are limited per hour. Numbers are compared in E.164. The phone's
// holder is whoever answers the code: an account that proves a number another account verified
// takes it over, and the other account's owner is told by mail.
import { and, eq, inArray, isNotNull, ne } from "drizzle-orm";
import { customers } from "../../../schema/identity.ts";
import { testCalls, verifiedNumbers } from "../../../schema/test-calls.ts";
import { hmacSha256Hex, timingSafeEqual } from "../../lib/crypto.ts";
import { newId } from "../../lib/ids.ts";
import { toE164 } from "../../../schema/numbers.ts";
import { addSeconds, nowIso } from "../../lib/time.ts";
import type { CreateVerifiedNumber } from "../../resources/test-calls.ts";
import type { DestinationTarget } from "../../../schema/node-api.ts";
import type { Config } from "../../env.ts";
import type { Services } from "../context.ts";
import { Conflict, Forbidden, InvalidField, TooManyRequests, Unavailable } from "../errors.ts";
import { owned, ownedRow, ownedRowsNewestFirst } from "../owned.ts";
import { placedCallPolicyOf, requireAllowedNumber, takePlacedCall } from "./placed-calls.ts";
import { actingLabel, type Principal } from "../identity/principal.ts";
import { countTestCall, dispatchTestCall, newTestCallRow } from "./test-call-dispatch.ts";

type NumberRow = typeof verifiedNumbers.$inferSelect;

export const CODE_TTL_SECONDS = 600;
export const MAX_CODE_ATTEMPTS = 5;
export const VERIFY_CALLS_PER_HOUR = 3;
/** How long the verification call lasts: the code is spoken three times. */
const VERIFY_CALL_SECONDS = 20;
/** The longest a verification call may last, the announcement included. */
export const VERIFY_CALL_MAX_SECONDS = 60;

const encoder = new TextEncoder();

export function verifiedNumberOut(row: NumberRow) {
  const pending = row.verifiedAt === null && row.verificationCodeHash !== null;
  return {
    id: row.id,
    number: row.number,
    label: row.label,
    verified: row.verifiedAt !== null,
    verified_at: row.verifiedAt,
    verification_method: row.verificationMethod,
    code_expires_at: pending ? row.verificationExpiresAt : null,
    attempts_left: pending ? Math.max(0, MAX_CODE_ATTEMPTS - row.verificationAttempts) : 0,
    created_at: row.createdAt,
  };
}

/** The account's verified entry for `number` (compared in E.164), or undefined. */
export async function verifiedNumberOf(s: Services, customerId: string, number: string): Promise<NumberRow | undefined> {
  const e164 = toE164(number);
  if (!e164) return undefined;
  return s.db
    .select()
    .from(verifiedNumbers)
    .where(and(eq(verifiedNumbers.customerId, customerId), eq(verifiedNumbers.number, e164), isNotNull(verifiedNumbers.verifiedAt)))
    .get();
}

/** The number a person typed, in E.164; 422 on `number` when it cannot be one. */
function e164Of(raw: string): string {
  const e164 = toE164(raw);
  if (!e164)
    throw new InvalidField("number", "not_a_phone_number: give the number in international form (+country code)", "not_a_phone_number");
  return e164;
}

const findNumber = (s: Services, customerId: string, id: string) => ownedRow(s.db, verifiedNumbers, customerId, id, "verified number");

const codeHash = (s: Services, id: string, code: string) => hmacSha256Hex(s.config.ENCRYPTION_KEY, `verified-number:${id}:${code}`);

const newCode = () => String(crypto.getRandomValues(new Uint32Array(1))[0]! % 1_000_000).padStart(6, "0");

export async function listVerifiedNumbers(s: Services, principal: Principal) {
  const rows = await ownedRowsNewestFirst(s.db, verifiedNumbers, principal.customer.id);
  return rows.map(verifiedNumberOut);
}

export async function addVerifiedNumber(s: Services, principal: Principal, input: CreateVerifiedNumber) {
  const customerId = principal.customer.id;
  const number = e164Of(input.number);
  if (!principal.customer.testCallsEnabled) throw new Forbidden("test_calls_disabled");
  const mine = await s.db
    .select({ id: verifiedNumbers.id })
    .from(verifiedNumbers)
    .where(and(eq(verifiedNumbers.customerId, customerId), eq(verifiedNumbers.number, number)))
    .get();
  if (mine) throw new Conflict("Number already added");
  await countVerificationCall(s, customerId, number);

  const now = nowIso();
  const row: NumberRow = {
    id: newId(),
    customerId,
    number,
    label: input.label || null,
    verifiedAt: null,
    verificationMethod: null,
    verificationCodeHash: null,
    verificationExpiresAt: null,
    verificationAttempts: 0,
    createdBy: actingLabel(principal),
    createdAt: now,
    updatedAt: now,
  };
  await s.db.insert(verifiedNumbers).values(row);
  return verifiedNumberOut(await placeVerificationCall(s, principal, row));
}

/** Calls the number again with a new code (the old one stops working). */
export async function callVerifiedNumber(s: Services, principal: Principal, id: string) {
  const customerId = principal.customer.id;
  const row = await findNumber(s, customerId, id);
  if (row.verifiedAt) throw new Conflict("Number already verified");
  if (!principal.customer.testCallsEnabled) throw new Forbidden("test_calls_disabled");
  await countVerificationCall(s, customerId, row.number);
  return verifiedNumberOut(await placeVerificationCall(s, principal, row));
}

/** The owner enters the code the platform spoke. A verified number stays verified (200 unchanged). */
export async function verifyNumber(s: Services, principal: Principal, id: string, code: string) {
  const customerId = principal.customer.id;
  const row = await findNumber(s, customerId, id);
  if (row.verifiedAt) return verifiedNumberOut(row);
  if (!row.verificationCodeHash || !row.verificationExpiresAt || row.verificationExpiresAt <= nowIso()) {
    throw new InvalidField("code", "code_expired: ask for a new call (POST .../call)", "code_expired");
  }
  const expected = encoder.encode(row.verificationCodeHash);
  if (!timingSafeEqual(encoder.encode(await codeHash(s, row.id, code)), expected)) {
    const attempts = row.verificationAttempts + 1;
    // The fifth wrong code ends the code: a new call brings a new one.
    const spent = attempts >= MAX_CODE_ATTEMPTS;
    await s.db
      .update(verifiedNumbers)
      .set({
        verificationAttempts: attempts,
        ...(spent ? { verificationCodeHash: null, verificationExpiresAt: null } : {}),
        updatedAt: nowIso(),
      })
      .where(owned(verifiedNumbers, customerId, row.id));
    throw new InvalidField("code", spent ? "wrong_code: no tries left, ask for a new call" : "wrong_code", "wrong_code");
  }
  const now = nowIso();
  const patch = {
    verifiedAt: now,
    verificationMethod: "call",
    verificationCodeHash: null,
    verificationExpiresAt: null,
    verificationAttempts: 0,
    updatedAt: now,
  };
  await s.db
    .update(verifiedNumbers)
    .set(patch)
    .where(owned(verifiedNumbers, customerId, row.id));
  await takeOver(s, row);
  return verifiedNumberOut({ ...row, ...patch });
}

/**
 * The number was just proven by `winner`'s account: other accounts that had verified it lose it
 * (it unlocks nothing there any more) and each owner is told by mail.
 */
async function takeOver(s: Services, winner: NumberRow): Promise<void> {
  const lost = await s.db
    .update(verifiedNumbers)
    .set({ verifiedAt: null, verificationMethod: null, updatedAt: nowIso() })
    .where(
      and(
        eq(verifiedNumbers.number, winner.number),
        ne(verifiedNumbers.customerId, winner.customerId),
        isNotNull(verifiedNumbers.verifiedAt),
      ),
    )
    .returning({ customerId: verifiedNumbers.customerId });
  if (lost.length === 0) return;
  const owners = await s.db
    .select({ email: customers.email })
    .from(customers)
    .where(inArray(customers.id, [...new Set(lost.map((l) => l.customerId))]));
  for (const owner of owners) {
    await s.mail.send({
      to: [owner.email],
      subject: `Your verified number ${winner.number} is no longer verified`,
      text: [
        `Another account has just verified ${winner.number} by answering the code our verification call spoke to it.`,
        "The number is no longer verified for your account: test calls and dialer calls cannot show it as their caller",
        "ID, and the scam sample and voice-agent mode will not ring it.",
        "",
        "If the number is yours, verify it again (Verified numbers, call me): whoever answers the code holds it.",
      ].join("\n"),
    });
  }
}

export async function deleteVerifiedNumber(s: Services, principal: Principal, id: string): Promise<void> {
  const row = await findNumber(s, principal.customer.id, id);
  await s.db.delete(verifiedNumbers).where(owned(verifiedNumbers, principal.customer.id, row.id));
}

/**
 * Calls to one number, whoever asks, are limited per hour; each also counts as one of the account's
 * test calls and placed calls, and rings only a number the platform's number policy lets it ring.
 */
async function countVerificationCall(s: Services, customerId: string, number: string): Promise<void> {
  if (!s.config.VERIFY_ROUTE) throw new Unavailable("verification_unavailable: no verification route is configured");
  const policy = await placedCallPolicyOf(s, customerId);
  requireAllowedNumber(policy, number);
  const verdict = await s.limiter(`verify-calls:${number}`).hit(VERIFY_CALLS_PER_HOUR, 3600);
  if (!verdict.allowed) throw new TooManyRequests("too_many_verification_calls", verdict.retryAfterSec);
  await countTestCall(s, customerId);
  await takePlacedCall(s, customerId, policy);
}

/** A new code, kept as its HMAC, spoken by a test call of purpose "verify". */
async function placeVerificationCall(s: Services, principal: Principal, row: NumberRow): Promise<NumberRow> {
  const code = newCode();
  const now = nowIso();
  const patch = {
    verificationCodeHash: await codeHash(s, row.id, code),
    verificationExpiresAt: addSeconds(now, CODE_TTL_SECONDS),
    verificationAttempts: 0,
    updatedAt: now,
  };
  await s.db
    .update(verifiedNumbers)
    .set(patch)
    .where(owned(verifiedNumbers, row.customerId, row.id));
  const call = newTestCallRow(
    {
      customerId: row.customerId,
      status: "queued",
      number: row.number,
      callerId: null,
      // The platform's own route (VERIFY_ROUTE), never one of the account's destinations.
      destinationId: null,
      seconds: VERIFY_CALL_SECONDS,
      speech: "verification_code",
      purpose: "verify",
      createdBy: actingLabel(principal),
    },
    now,
  );
  await s.db.insert(testCalls).values(call);
  s.background(dispatchTestCall(s, call, code));
  return { ...row, ...patch };
}

/** The platform's verification route (VERIFY_ROUTE) as a node dials it, or null when none is configured. */
export function verificationRoute(
  config: Pick<Config, "VERIFY_ROUTE" | "VERIFY_ROUTE_USERNAME" | "VERIFY_ROUTE_PASSWORD">,
): DestinationTarget | null {
  const match = /^(sips?):(\[[0-9a-f:.]+\]|[^:;]+)(?::(\d+))?(?:;transport=(udp|tcp|tls))?$/i.exec(config.VERIFY_ROUTE ?? "");
  if (!match) return null;
  const secure = match[1]!.toLowerCase() === "sips";
  const username = config.VERIFY_ROUTE_USERNAME;
  const password = config.VERIFY_ROUTE_PASSWORD;
  return {
    id: "platform-verify-route",
    host: match[2]!.replace(/^\[|\]$/g, ""),
    port: match[3] ? Number(match[3]) : secure ? 5061 : 5060,
    transport: (match[4]?.toLowerCase() ?? (secure ? "tls" : "udp")) as DestinationTarget["transport"],
    kind: "sip",
    provider: null,
    agent_id: null,
    tech_prefix: null,
    auth: username && password ? { username, password, realm: null } : null,
  };
}
