import { sql } from "drizzle-orm";
import { describeError } from "../lib/errors.ts";
import type { Services } from "./context.ts";

/** True when D1 answers a trivial query. */
export async function databaseAnswers({ db }: Services): Promise<boolean> {
  return db
    .run(sql`SELECT 1`)
    .then(() => true)
    .catch((err: unknown) => {
      console.error("health: database check failed", describeError(err));
      return false;
    });
}
