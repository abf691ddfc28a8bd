import { getTableColumns, type Table } from "drizzle-orm";
import type { BatchItem } from "drizzle-orm/batch";
import { drizzle } from "drizzle-orm/d1";
import * as schema from "../../schema/index.ts";

/** Every query and batch goes through `retryingD1`: a transient failure is tried again, with backoff, a bounded number of times. */
export const database = (d1: D1Database, retry: D1RetryPolicy = D1_RETRY) => drizzle(retryingD1(d1, retry), { schema });
export type Db = ReturnType<typeof database>;

export type D1RetryPolicy = {
  /** Tries in all, the first included. */
  attempts: number;
  /** The wait before the first retry; doubled before each next one, up to maxDelayMs, then jittered (half to all of it). */
  baseDelayMs: number;
  maxDelayMs: number;
  sleep?: (ms: number) => Promise<void>;
};

/** Six tries over about a second and a half at most. */
export const D1_RETRY: D1RetryPolicy = { attempts: 6, baseDelayMs: 50, maxDelayMs: 800 };

/**
 * Failures that say nothing about the statement, only that D1 could not run it now: the local
 * SQLite file locked by another process (SQLITE_BUSY, as `wrangler d1 execute --local` beside
 * `wrangler dev` causes), and those Cloudflare's D1 documentation says to retry ("Retry queries").
 */
const TRANSIENT_D1 = [
  "SQLITE_BUSY",
  "database is locked",
  "Network connection lost",
  "storage caused object to be reset",
  "reset because its code was updated",
];

/** True when a D1 error (anywhere in its cause chain) is one worth trying again. */
export function isTransientD1Error(err: unknown): boolean {
  for (let e: unknown = err; e !== undefined && e !== null; e = e instanceof Error ? e.cause : undefined) {
    const message = e instanceof Error ? e.message : String(e);
    if (TRANSIENT_D1.some((text) => message.includes(text))) return true;
    if (!(e instanceof Error)) break;
  }
  return false;
}

/** Runs `work` again after a transient D1 failure, waiting longer each time, at most `policy.attempts` tries. */
export async function withD1Retry<T>(work: () => Promise<T>, policy: D1RetryPolicy = D1_RETRY): Promise<T> {
  const sleep = policy.sleep ?? ((ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms)));
  for (let attempt = 1; ; attempt++) {
    try {
      return await work();
    } catch (err) {
      if (attempt >= policy.attempts || !isTransientD1Error(err)) throw err;
      const ceiling = Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** (attempt - 1));
      await sleep(ceiling / 2 + (Math.random() * ceiling) / 2);
    }
  }
}

/** A prepared statement whose every run (first, run, all, raw) is retried; binding keeps the wrapper. */
class RetryingStatement implements D1PreparedStatement {
  readonly inner: D1PreparedStatement;
  private readonly policy: D1RetryPolicy;

  constructor(inner: D1PreparedStatement, policy: D1RetryPolicy) {
    this.inner = inner;
    this.policy = policy;
  }

  bind(...values: unknown[]): D1PreparedStatement {
    return new RetryingStatement(this.inner.bind(...values), this.policy);
  }

  first<T = unknown>(colName?: string): Promise<T | null> {
    return withD1Retry(() => (colName === undefined ? this.inner.first<T>() : this.inner.first<T>(colName)), this.policy);
  }

  run<T = Record<string, unknown>>(): Promise<D1Result<T>> {
    return withD1Retry(() => this.inner.run<T>(), this.policy);
  }

  all<T = Record<string, unknown>>(): Promise<D1Result<T>> {
    return withD1Retry(() => this.inner.all<T>(), this.policy);
  }

  raw<T = unknown[]>(options: { columnNames: true }): Promise<[string[], ...T[]]>;
  raw<T = unknown[]>(options?: { columnNames?: false }): Promise<T[]>;
  raw<T = unknown[]>(options?: { columnNames?: boolean }): Promise<[string[], ...T[]] | T[]> {
    if (options?.columnNames) return withD1Retry(() => this.inner.raw<T>({ columnNames: true }), this.policy);
    return withD1Retry(() => this.inner.raw<T>(options as { columnNames?: false }), this.policy);
  }
}

/**
 * The D1 binding with every statement and batch retried after a transient failure (`withD1Retry`).
 * A batch is one transaction, so trying it again is all or none as before. A write whose answer
 * was lost ("Network connection lost") may have been applied: our writes are keyed by fresh ids or
 * conditional, and money never moves in D1, so a second application is refused or changes nothing.
 */
export function retryingD1(d1: D1Database, policy: D1RetryPolicy = D1_RETRY): D1Database {
  const unwrap = (s: D1PreparedStatement) => (s instanceof RetryingStatement ? s.inner : s);
  return {
    prepare: (query) => new RetryingStatement(d1.prepare(query), policy),
    batch: (statements) => withD1Retry(() => d1.batch(statements.map(unwrap)), policy),
    exec: (query) => withD1Retry(() => d1.exec(query), policy),
    withSession: (constraintOrBookmark) => d1.withSession(constraintOrBookmark),
    dump: () => d1.dump(),
  };
}

/** True when a write failed on a unique index (D1 reports it inside the error's cause chain). */
export function isUniqueViolation(err: unknown): boolean {
  for (let e: unknown = err; e instanceof Error; e = e.cause) {
    if (e.message.includes("UNIQUE constraint failed")) return true;
  }
  return false;
}

/** D1 binds at most 100 parameters per statement. */
export const D1_MAX_PARAMS = 100;

/**
 * Splits items into slices small enough for one statement each: `paramsPerItem` parameters per
 * item, plus `paramsBesides` that the rest of the statement binds (a SET value, another filter).
 */
export function d1Chunks<T>(items: readonly T[], paramsPerItem = 1, paramsBesides = 0): T[][] {
  const size = Math.max(1, Math.floor((D1_MAX_PARAMS - paramsBesides) / paramsPerItem));
  const slices: T[][] = [];
  for (let i = 0; i < items.length; i += size) slices.push(items.slice(i, i + size));
  return slices;
}

/** The most parameters one row of `table` can bind (every column). */
export const paramsPerRow = (table: Table) => Object.keys(getTableColumns(table)).length;

/** Runs the statements as one D1 batch (all or none); nothing to run is no round trip. */
export async function runBatch(db: Db, statements: BatchItem<"sqlite">[]): Promise<void> {
  const [first, ...rest] = statements;
  if (first) await db.batch([first, ...rest]);
}
