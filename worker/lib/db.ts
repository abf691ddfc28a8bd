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
