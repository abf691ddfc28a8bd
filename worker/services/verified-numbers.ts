// Verified caller IDs (our extension): numbers an account has proven it answers. Adding one makes
// the platform call it (a test call of purpose "verify", through the account's default
// destination) and speak a six-digit code; the owner enters the code here. Only an HMAC of the
// code is kept, good for ten minutes and five wrong tries; calls to one number are limited per
// hour. A number verified by one account cannot be verified by another.
import { and, desc, eq, inArray, isNotNull } from "drizzle-orm";
import { destinations } from "../../schema/network.ts";
import { testCalls, verifiedNumbers } from "../../schema/test-calls.ts";
import { hmacSha256Hex, timingSafeEqual } from "../lib/crypto.ts";
import { newId } from "../lib/ids.ts";
import { digitsOf, normalizeNumber } from "../lib/numbers.ts";
import { addSeconds, nowIso } from "../lib/time.ts";
import type { CreateVerifiedNumber } from "../resources/test-calls.ts";
import type { Services } from "./context.ts";
import { Conflict, Forbidden, InvalidField, TooManyRequests } from "./errors.ts";
import { owned, ownedRow } from "./owned.ts";
import { actingLabel, type Principal } from "./principal.ts";
import { countTestCall, dispatchTestCall, emptyProgress, type TestCallRow } from "./test-calls.ts";

type NumberRow = typeof verifiedNumbers.$inferSelect;

export const CODE_TTL_SECONDS = 600;
export const MAX_CODE_ATTEMPTS = 5;
export const VERIFY_CALLS_PER_HOUR = 3;
/** How long the verification call lasts: the code is spoken three times. */
const VERIFY_CALL_SECONDS = 20;

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

/** The account's verified entry for `number` (compared as digits), or undefined. */
export async function verifiedNumberOf(s: Services, customerId: string, number: string): Promise<NumberRow | undefined> {
  const rows = await s.db
    .select()
    .from(verifiedNumbers)
    .where(and(eq(verifiedNumbers.customerId, customerId), isNotNull(verifiedNumbers.verifiedAt)));
  return rows.find((row) => digitsOf(row.number) === digitsOf(number));
}

/** Whether another account has verified the number (stored with or without its +). */
async function verifiedElsewhere(s: Services, customerId: string, number: string): Promise<boolean> {
  const digits = digitsOf(number);
  const rows = await s.db
    .select({ customerId: verifiedNumbers.customerId })
    .from(verifiedNumbers)
    .where(and(isNotNull(verifiedNumbers.verifiedAt), inArray(verifiedNumbers.number, [digits, `+${digits}`])));
  return rows.some((row) => row.customerId !== customerId);
}

const findNumber = (s: Services, customerId: string, id: string) => ownedRow(s.db, verifiedNumbers, customerId, id, "verified number");

const codeHash = (s: Services, id: string, code: string) => hmacSha256Hex(s.config.ENCRYPTION_KEY, `verified-number:${id}:${code}`);

const newCode = () => String(crypto.getRandomValues(new Uint32Array(1))[0]! % 1_000_000).padStart(6, "0");

export async function listVerifiedNumbers(s: Services, principal: Principal) {
  const rows = await s.db
    .select()
    .from(verifiedNumbers)
    .where(eq(verifiedNumbers.customerId, principal.customer.id))
    .orderBy(desc(verifiedNumbers.createdAt), desc(verifiedNumbers.id));
  return rows.map(verifiedNumberOut);
}

export async function addVerifiedNumber(s: Services, principal: Principal, input: CreateVerifiedNumber) {
  const customerId = principal.customer.id;
  const number = normalizeNumber(input.number);
  if (!principal.customer.testCallsEnabled) throw new Forbidden("test_calls_disabled");
  if (await verifiedElsewhere(s, customerId, number)) throw new Conflict("Number is verified by another account");
  const mine = await s.db.select().from(verifiedNumbers).where(eq(verifiedNumbers.customerId, customerId));
  if (mine.some((row) => digitsOf(row.number) === digitsOf(number))) throw new Conflict("Number already added");
  const destinationId = await defaultDestination(s, customerId);
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
  return verifiedNumberOut(await placeVerificationCall(s, principal, row, destinationId));
}

/** Calls the number again with a new code (the old one stops working). */
export async function callVerifiedNumber(s: Services, principal: Principal, id: string) {
  const customerId = principal.customer.id;
  const row = await findNumber(s, customerId, id);
  if (row.verifiedAt) throw new Conflict("Number already verified");
  if (!principal.customer.testCallsEnabled) throw new Forbidden("test_calls_disabled");
  const destinationId = await defaultDestination(s, customerId);
  await countVerificationCall(s, customerId, row.number);
  return verifiedNumberOut(await placeVerificationCall(s, principal, row, destinationId));
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
  if (await verifiedElsewhere(s, customerId, row.number)) throw new Conflict("Number is verified by another account");
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
  return verifiedNumberOut({ ...row, ...patch });
}

export async function deleteVerifiedNumber(s: Services, principal: Principal, id: string): Promise<void> {
  const row = await findNumber(s, principal.customer.id, id);
  await s.db.delete(verifiedNumbers).where(owned(verifiedNumbers, principal.customer.id, row.id));
}

async function defaultDestination(s: Services, customerId: string): Promise<string> {
  const found = await s.db
    .select({ id: destinations.id })
    .from(destinations)
    .where(and(eq(destinations.customerId, customerId), eq(destinations.isDefault, true)))
    .get();
  if (!found) throw new Conflict("Add a destination before verifying a number");
  return found.id;
}

/** Calls to one number, whoever asks, are limited per hour; each also counts as one of the account's test calls. */
async function countVerificationCall(s: Services, customerId: string, number: string): Promise<void> {
  const verdict = await s.limiter(`verify-calls:${digitsOf(number)}`).hit(VERIFY_CALLS_PER_HOUR, 3600);
  if (!verdict.allowed) throw new TooManyRequests("too_many_verification_calls", verdict.retryAfterSec);
  await countTestCall(s, customerId);
}

/** A new code, kept as its HMAC, spoken by a test call of purpose "verify". */
async function placeVerificationCall(s: Services, principal: Principal, row: NumberRow, destinationId: string): Promise<NumberRow> {
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
  const call: TestCallRow = {
    ...emptyProgress,
    id: newId(),
    customerId: row.customerId,
    status: "queued",
    number: row.number,
    callerId: null,
    destinationId,
    seconds: VERIFY_CALL_SECONDS,
    speech: "verification_code",
    sipCallId: `${newId()}@test-call`,
    agentDestinationId: null,
    instruction: null,
    purpose: "verify",
    createdBy: actingLabel(principal),
    confirmedAt: null,
    confirmedBy: null,
    confirmUrl: null,
    confirmExpiresAt: null,
    createdAt: now,
    updatedAt: now,
  };
  await s.db.insert(testCalls).values(call);
  s.background(dispatchTestCall(s, call, code));
  return { ...row, ...patch };
}
