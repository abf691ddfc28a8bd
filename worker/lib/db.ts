import { getTableColumns, type Table } from "drizzle-orm";
import type { BatchItem } from "drizzle-orm/batch";
import { drizzle } from "drizzle-orm/d1";
import * as schema from "../../schema/index.ts";

export const database = (d1: D1Database) => drizzle(d1, { schema });
export type Db = ReturnType<typeof database>;

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
