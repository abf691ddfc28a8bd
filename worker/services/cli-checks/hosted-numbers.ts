// Numbers people host for the platform: they own a working number in a country, point it at the
// platform's hosted-number listener (forward_to), confirm it by calling it once
// (test_hosted_number opens a ten-minute window; the listener sees the call and marks it live), and
// earn a share of each check it answers, credited to their balance through the ledger. A number
// that misses HOSTED_NUMBER_MAX_MISSES checks in a row is marked down and leaves coverage until a
// new test call brings it back.
import { and, eq, gt, sql } from "drizzle-orm";
import { parsePhoneNumberFromString } from "libphonenumber-js/max";
import { hostedNumbers } from "../../../schema/cli-checks.ts";
import { newId } from "../../lib/ids.ts";
import { toUsd } from "../../lib/money.ts";
import { page, type PageParams } from "../../lib/pagination.ts";
import { addSeconds, nowIso } from "../../lib/time.ts";
import type { CreateHostedNumber } from "../../resources/cli-checks.ts";
import type { Services } from "../context.ts";
import { Conflict, InvalidField } from "../errors.ts";
import type { Principal } from "../identity/principal.ts";
import { owned, ownedRow } from "../owned.ts";
import { placedCallPolicyOf, requireAllowedNumber } from "../placed-calls/placed-calls.ts";

export type HostedNumberRow = typeof hostedNumbers.$inferSelect;

/** How long a test_hosted_number window stays open. */
export const TEST_WINDOW_SECONDS = 600;

/** The SIP URI a hosted number forwards to: the number at the listener's address. */
export function forwardTo(s: Services, number: string): string {
  return s.config.CLI_LISTENER_URI.replace(/^(sips?:)/i, `$1${number}@`);
}

export function hostedNumberOut(s: Services, row: HostedNumberRow, now = nowIso()) {
  return {
    id: row.id,
    number: row.number,
    country: row.country,
    reach_by: row.reachBy,
    forward_to: forwardTo(s, row.number),
    status: row.status as "pending" | "live" | "down",
    awaiting_test_call_until: row.listeningUntil && row.listeningUntil > now ? row.listeningUntil : null,
    confirmed_at: row.confirmedAt,
    last_answered_at: row.lastAnsweredAt,
    checks_answered: row.checksAnswered,
    earnings_usd: toUsd(row.earningsMicros),
    created_at: row.createdAt,
  };
}

export async function hostNumber(s: Services, principal: Principal, input: CreateHostedNumber) {
  const parsed = parsePhoneNumberFromString(input.number.startsWith("+") ? input.number : `+${input.number}`);
  if (!parsed?.isValid()) throw new InvalidField("number", "number is not a valid phone number in international form");
  const country = input.country ?? parsed.country;
  if (!country) throw new InvalidField("country", "country could not be told from the number: name it");
  if (parsed.country && parsed.country !== country) {
    throw new InvalidField("country", `number ${parsed.number} is in ${parsed.country}, not ${country}`);
  }
  // A number checks will ring must be one the platform may ring.
  requireAllowedNumber(await placedCallPolicyOf(s, principal.customer.id), parsed.number);
  const taken = await s.db.select({ id: hostedNumbers.id }).from(hostedNumbers).where(eq(hostedNumbers.number, parsed.number)).get();
  if (taken) throw new Conflict("hosted_number_exists");
  const now = nowIso();
  const row: HostedNumberRow = {
    id: newId(),
    customerId: principal.customer.id,
    number: parsed.number,
    country,
    reachBy: input.reach_by ?? null,
    status: "pending",
    listeningUntil: null,
    confirmedAt: null,
    lastAnsweredAt: null,
    checksAnswered: 0,
    misses: 0,
    earningsMicros: 0,
    createdAt: now,
    updatedAt: now,
  };
  await s.db.insert(hostedNumbers).values(row);
  return hostedNumberOut(s, row, now);
}

export async function listHostedNumbers(s: Services, principal: Principal, params: PageParams) {
  const where = eq(hostedNumbers.customerId, principal.customer.id);
  const [rows, total] = await Promise.all([
    s.db
      .select()
      .from(hostedNumbers)
      .where(where)
      .orderBy(sql`${hostedNumbers.createdAt} desc`)
      .limit(params.limit)
      .offset(params.offset),
    s.db.$count(hostedNumbers, where),
  ]);
  return page(
    rows.map((row) => hostedNumberOut(s, row)),
    total,
    params,
  );
}

export async function getHostedNumber(s: Services, principal: Principal, id: string) {
  return hostedNumberOut(s, await ownedRow(s.db, hostedNumbers, principal.customer.id, id, "Hosted number"));
}

/** Opens the window in which a call to the number, from any phone, confirms it live. */
export async function testHostedNumber(s: Services, principal: Principal, id: string) {
  await ownedRow(s.db, hostedNumbers, principal.customer.id, id, "Hosted number");
  const now = nowIso();
  const [row] = await s.db
    .update(hostedNumbers)
    .set({ listeningUntil: addSeconds(now, TEST_WINDOW_SECONDS), updatedAt: now })
    .where(owned(hostedNumbers, principal.customer.id, id))
    .returning();
  return hostedNumberOut(s, row!, now);
}

export async function deleteHostedNumber(s: Services, principal: Principal, id: string): Promise<void> {
  await ownedRow(s.db, hostedNumbers, principal.customer.id, id, "Hosted number");
  await s.db.delete(hostedNumbers).where(owned(hostedNumbers, principal.customer.id, id));
}

/** The hosted number a call to `number` reaches, if any. */
export async function hostedNumberCalled(s: Services, number: string): Promise<HostedNumberRow | undefined> {
  return s.db.select().from(hostedNumbers).where(eq(hostedNumbers.number, number)).get();
}

/** A call reached the number while its test window was open: it is live (true), else nothing changes (false). */
export async function confirmIfTesting(s: Services, row: HostedNumberRow, now: string): Promise<boolean> {
  const moved = await s.db
    .update(hostedNumbers)
    .set({ status: "live", misses: 0, confirmedAt: now, listeningUntil: null, updatedAt: now })
    .where(and(eq(hostedNumbers.id, row.id), gt(hostedNumbers.listeningUntil, now)))
    .returning({ id: hostedNumbers.id });
  return moved.length > 0;
}

/**
 * The number answered a check: its holder is credited its share through the ledger (once: the
 * entry is the check's), and the number's counters move.
 */
export async function creditAnsweredCheck(s: Services, hostedNumberId: string, checkId: string, feeMicros: number, now: string) {
  const row = await s.db.select().from(hostedNumbers).where(eq(hostedNumbers.id, hostedNumberId)).get();
  if (!row) return;
  const share = Math.floor((feeMicros * s.config.HOSTED_NUMBER_SHARE_PERCENT) / 100);
  let earned = 0;
  if (share > 0) {
    const credited = await s.ledger(row.customerId).credit({
      entryId: `cli-share:${checkId}`,
      type: "hosted_number_share",
      amountMicros: share,
      description: `Hosted number ${row.number}: a caller-ID check answered`,
      createdAt: now,
    });
    if (credited.ok) earned = share;
  }
  await s.db
    .update(hostedNumbers)
    .set({
      checksAnswered: sql`${hostedNumbers.checksAnswered} + 1`,
      earningsMicros: sql`${hostedNumbers.earningsMicros} + ${earned}`,
      misses: 0,
      status: "live",
      lastAnsweredAt: now,
      updatedAt: now,
    })
    .where(eq(hostedNumbers.id, hostedNumberId));
}

/** A check sent to the number never reached it: after HOSTED_NUMBER_MAX_MISSES in a row it is down. */
export async function countMiss(s: Services, hostedNumberId: string, now: string): Promise<void> {
  await s.db
    .update(hostedNumbers)
    .set({
      misses: sql`${hostedNumbers.misses} + 1`,
      status: sql`case when ${hostedNumbers.misses} + 1 >= ${s.config.HOSTED_NUMBER_MAX_MISSES} then 'down' else ${hostedNumbers.status} end`,
      updatedAt: now,
    })
    .where(eq(hostedNumbers.id, hostedNumberId));
}
