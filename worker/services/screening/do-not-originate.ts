// The account's do-not-originate list: numbers that never place calls (its own inbound-only
// numbers, a list it uploads); a carrier call claiming one as its caller ID is flagged or refused
// at admission (rule do_not_originate). Numbers are kept in E.164; every change hands the ledger
// its new admission state, which carries the whole list (so the list is capped).
import { and, count, desc, eq, inArray } from "drizzle-orm";
import { doNotOriginate } from "../../../schema/screening.ts";
import { d1Chunks, paramsPerRow, runBatch } from "../../lib/db.ts";
import { newId } from "../../lib/ids.ts";
import { page, type PageParams } from "../../lib/pagination.ts";
import { nowIso } from "../../lib/time.ts";
import { dnoNumber, MAX_DNO_NUMBERS, type AddDoNotOriginate } from "../../resources/screening.ts";
import type { Services } from "../context.ts";
import { Conflict } from "../errors.ts";
import type { Principal } from "../identity/principal.ts";
import { owned, ownedRow } from "../owned.ts";
import { syncAdmissionState } from "../trunk/admission-state.ts";

type DnoRow = typeof doNotOriginate.$inferSelect;

const dnoOut = (row: DnoRow) => ({ id: row.id, number: row.number, label: row.label, created_at: row.createdAt });

export async function listDoNotOriginate(s: Services, principal: Principal, params: PageParams) {
  const where = eq(doNotOriginate.customerId, principal.customer.id);
  const [rows, [total]] = await Promise.all([
    s.db
      .select()
      .from(doNotOriginate)
      .where(where)
      .orderBy(desc(doNotOriginate.createdAt), desc(doNotOriginate.id))
      .limit(params.limit)
      .offset(params.offset),
    s.db.select({ n: count() }).from(doNotOriginate).where(where),
  ]);
  return page(rows.map(dnoOut), total?.n ?? 0, params);
}

/** Adds the numbers not listed yet (the schema checked each one); 409 when the list would pass MAX_DNO_NUMBERS. */
export async function addDoNotOriginate(s: Services, principal: Principal, input: AddDoNotOriginate) {
  const customerId = principal.customer.id;
  const given = "numbers" in input ? input.numbers : [input.number];
  const numbers = [...new Set(given.map((n) => dnoNumber(n)!))];
  const listed = new Set<string>();
  for (const slice of d1Chunks(numbers, 1, 1)) {
    const rows = await s.db
      .select({ number: doNotOriginate.number })
      .from(doNotOriginate)
      .where(and(eq(doNotOriginate.customerId, customerId), inArray(doNotOriginate.number, slice)));
    for (const row of rows) listed.add(row.number);
  }
  const fresh = numbers.filter((n) => !listed.has(n));
  const [held] = await s.db.select({ n: count() }).from(doNotOriginate).where(eq(doNotOriginate.customerId, customerId));
  if ((held?.n ?? 0) + fresh.length > MAX_DNO_NUMBERS)
    throw new Conflict(`the do-not-originate list holds at most ${MAX_DNO_NUMBERS} numbers`);
  const now = nowIso();
  const rows: DnoRow[] = fresh.map((number) => ({ id: newId(), customerId, number, label: input.label ?? null, createdAt: now }));
  await runBatch(
    s.db,
    d1Chunks(rows, paramsPerRow(doNotOriginate)).map((slice) => s.db.insert(doNotOriginate).values(slice).onConflictDoNothing()),
  );
  if (rows.length > 0) await syncAdmissionState(s, customerId);
  return { added: rows.length, already_listed: numbers.length - rows.length, items: rows.map(dnoOut) };
}

export async function removeDoNotOriginate(s: Services, principal: Principal, id: string): Promise<void> {
  const customerId = principal.customer.id;
  await ownedRow(s.db, doNotOriginate, customerId, id, "Number");
  await s.db.delete(doNotOriginate).where(owned(doNotOriginate, customerId, id));
  await syncAdmissionState(s, customerId);
}
