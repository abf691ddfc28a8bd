// Finding calls: GET /calls with every filter of the spec and a sort over all matches, and the
// counts of claimed entities and verdict keywords behind /calls/entities and /calls/keywords.
// Every filter is served by an index leading with the account (schema/calls.ts); `q` is the one
// that reads the account's calls in full (substring search has no index).
import { and, asc, count, desc, eq, exists, getTableColumns, gte, lt, or, sql, type AnyColumn, type SQL } from "drizzle-orm";
import { alias, type SQLiteSelect } from "drizzle-orm/sqlite-core";
import { callEntities, callKeywords, calls, transcripts } from "../../../schema/calls.ts";
import type { Db } from "../../lib/db.ts";
import { page } from "../../lib/pagination.ts";
import type { CallListInput, CallSort, TermCountInput } from "../../resources/call-list.ts";
import { verdictExtrasOf } from "./records.ts";
import { callOut } from "./calls.ts";
import type { Services } from "../context.ts";
import type { Principal } from "../identity/principal.ts";

/**
 * The order of each sort key. Ties go newest first (then by id, so pages never overlap); calls
 * without the value (no verdict yet, not ended) come last in both directions. SQLite puts NULLs
 * last on its own when descending; ascending says so.
 */
const ORDER: Record<CallSort, SQL[]> = {
  "-started_at": [desc(calls.startedAt), desc(calls.id)],
  started_at: [asc(calls.startedAt), asc(calls.id)],
  "-probability": [desc(calls.probability), desc(calls.startedAt), desc(calls.id)],
  probability: [sql`${calls.probability} asc nulls last`, desc(calls.startedAt), desc(calls.id)],
  "-duration_sec": [desc(calls.durationSec), desc(calls.startedAt), desc(calls.id)],
  duration_sec: [sql`${calls.durationSec} asc nulls last`, desc(calls.startedAt), desc(calls.id)],
};

/**
 * Whether `column` holds `text` anywhere, ignoring ASCII case as LIKE does. instr takes the text as
 * it is (nothing to escape) and at any length: D1 refuses LIKE patterns over 50 bytes.
 */
const holds = (column: AnyColumn, text: string) => sql`instr(lower(${column}), ${text.toLowerCase()}) > 0`;

/** `q`: the caller or the dialed number (also as bare digits when `q` is a formatted number), the transcript, its summary. */
function textSearch(db: Db, customerId: string, q: string): SQL {
  const numbers = [holds(calls.ani, q), holds(calls.dialed, q)];
  const digits = q.replace(/[\s().-]/g, "");
  if (/^\+?[0-9]+$/.test(digits) && digits !== q) numbers.push(holds(calls.ani, digits), holds(calls.dialed, digits));
  const inTranscript = db
    .select({ one: sql`1` })
    .from(transcripts)
    .where(and(eq(transcripts.callId, calls.id), eq(transcripts.customerId, customerId), holds(transcripts.text, q)));
  return or(...numbers, holds(calls.transcriptSummary, q), exists(inTranscript))!;
}

const tagged = (query: CallListInput) => Boolean(query.entity) || (query.keyword?.length ?? 0) > 0;

function filtersOf(db: Db, customerId: string, query: CallListInput): SQL {
  // With an entity or a keyword, SQLite must start from that tag's index (see joinTags): the unary +
  // keeps the account test from steering it to an index of calls, which would read every call of
  // the account to find the tagged ones. The test still holds; only the choice of index changes.
  const account = tagged(query) ? sql`+${calls.customerId} = ${customerId}` : eq(calls.customerId, customerId);
  const where: SQL[] = [account];
  const equal = (column: AnyColumn, value: string | boolean | undefined) => {
    if (value !== undefined && value !== "") where.push(eq(column, value));
  };
  equal(calls.status, query.status);
  equal(calls.analysisStatus, query.analysis_status);
  equal(calls.externalId, query.external_id);
  equal(calls.origin, query.origin);
  equal(calls.sipCallId, query.sip_call_id);
  equal(calls.sampled, query.sampled);
  equal(calls.category, query.category);
  equal(calls.recommendation, query.recommendation);
  equal(calls.routedDestinationId, query.destination_id);
  equal(calls.hasRouteAlert, query.route_alert);
  equal(calls.subCustomer, query.sub_customer);
  equal(calls.identityStatus, query.identity_status);
  equal(calls.attestation, query.attestation);
  if (query.from) where.push(gte(calls.startedAt, query.from));
  if (query.to) where.push(lt(calls.startedAt, query.to));
  if (query.min_probability !== undefined) where.push(gte(calls.probability, query.min_probability));
  if (query.q) where.push(textSearch(db, customerId, query.q));
  return and(...where)!;
}

/**
 * The entity and each keyword narrow by a join, so that SQLite starts from the (customer, entity)
 * or (customer, keyword) index and reads only the calls tagged so, then sorts those: the total
 * has to visit every match anyway, and never more. A call has one row per entity and per keyword,
 * so a join never repeats a call; the selection names its fields, so a join leaves the row's shape.
 */
function joinTags<Q extends SQLiteSelect>(found: Q, customerId: string, query: CallListInput): Q {
  if (query.entity) {
    const claimed = alias(callEntities, "claimed");
    found = found.innerJoin(
      claimed,
      and(eq(claimed.callId, calls.id), eq(claimed.customerId, customerId), eq(claimed.entity, query.entity)),
    ) as unknown as Q;
  }
  [...new Set(query.keyword ?? [])].forEach((keyword, i) => {
    const tagged = alias(callKeywords, `tagged${i}`);
    const on = and(eq(tagged.callId, calls.id), eq(tagged.customerId, customerId), eq(tagged.keyword, keyword));
    found = found.innerJoin(tagged, on) as unknown as Q;
  });
  return found;
}

/** The SQL of GET /calls's page for `query`, as it runs (for query plans). */
export function callListQuery(db: Db, customerId: string, query: CallListInput) {
  return joinTags(db.select(getTableColumns(calls)).from(calls).$dynamic(), customerId, query)
    .where(filtersOf(db, customerId, query))
    .orderBy(...ORDER[query.sort])
    .limit(query.limit)
    .offset(query.offset);
}

/** The SQL counting every match of `query` (the list's total). */
export const callCountQuery = (db: Db, customerId: string, query: CallListInput) =>
  joinTags(db.select({ n: count() }).from(calls).$dynamic(), customerId, query).where(filtersOf(db, customerId, query));

/** GET /calls: one page of the account's calls matching every filter given, sorted over all matches. */
export async function listCalls({ db }: Services, principal: Principal, query: CallListInput) {
  const customerId = principal.customer.id;
  const [rows, [total]] = await Promise.all([callListQuery(db, customerId, query), callCountQuery(db, customerId, query)]);
  const analysed = rows.filter((r) => r.probability !== null).map((r) => r.id);
  const verdicts = analysed.length ? await verdictExtrasOf(db, customerId, analysed) : new Map();
  return page(
    rows.map((row) => callOut(row, verdicts.get(row.id) ?? null)),
    total?.n ?? 0,
    query,
  );
}

/** The start of the window of `days` UTC calendar days ending today: midnight UTC, days - 1 days ago. */
export function windowStart(days: number, now = Date.now()): string {
  const today = now - (now % 86_400_000);
  return new Date(today - (days - 1) * 86_400_000).toISOString();
}

/** GET /calls/entities: the entities callers claimed, by how many calls in the window claimed each. */
export async function countEntities({ db }: Services, principal: Principal, query: TermCountInput) {
  const n = count();
  const rows = await db
    .select({ entity: callEntities.entity, count: n })
    .from(callEntities)
    .where(and(eq(callEntities.customerId, principal.customer.id), gte(callEntities.startedAt, windowStart(query.days))))
    .groupBy(callEntities.entity)
    .orderBy(desc(n), asc(callEntities.entity))
    .limit(query.limit);
  return rows;
}

/** GET /calls/keywords: the verdicts' keywords, by how many calls in the window had each. */
export async function countKeywords({ db }: Services, principal: Principal, query: TermCountInput) {
  const n = count();
  const rows = await db
    .select({ keyword: callKeywords.keyword, count: n })
    .from(callKeywords)
    .where(and(eq(callKeywords.customerId, principal.customer.id), gte(callKeywords.startedAt, windowStart(query.days))))
    .groupBy(callKeywords.keyword)
    .orderBy(desc(n), asc(callKeywords.keyword))
    .limit(query.limit);
  return rows;
}
