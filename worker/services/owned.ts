// Tenancy in one place: a record is found through its account, so another account's record
// is simply not found (404), never forbidden (which would confirm that it exists).
import { and, desc, eq, type SQL } from "drizzle-orm";
import type { SQLiteColumn, SQLiteTable } from "drizzle-orm/sqlite-core";
import type { Db } from "../lib/db.ts";
import { NotFound } from "./errors.ts";

type OwnedTable = SQLiteTable & { id: SQLiteColumn; customerId: SQLiteColumn };

/** The condition "this record, on this account", for reads and for the writes that follow them. */
export const owned = (table: OwnedTable, customerId: string, id: string): SQL => and(eq(table.id, id), eq(table.customerId, customerId))!;

/** The account's record, or NotFound("<what> not found"). */
export async function ownedRow<T extends OwnedTable>(db: Db, table: T, customerId: string, id: string, what: string) {
  const row = await db
    .select()
    .from(table as SQLiteTable)
    .where(owned(table, customerId, id))
    .get();
  if (!row) throw new NotFound(`${what} not found`);
  return row as T["$inferSelect"];
}

/** The account's records of a table, newest first (by creation, then id), as its list shows them. */
export async function ownedRowsNewestFirst<T extends OwnedTable & { createdAt: SQLiteColumn }>(db: Db, table: T, customerId: string) {
  const rows = await db
    .select()
    .from(table as SQLiteTable)
    .where(eq(table.customerId, customerId))
    .orderBy(desc(table.createdAt), desc(table.id));
  return rows as T["$inferSelect"][];
}
