// Column conventions shared by every table:
// - ids are UUID v7 strings (time-ordered, so inserts stay index-local);
// - timestamps are ISO 8601 UTC text with milliseconds ("2026-11-25T10:00:00.000Z"),
//   which sorts and range-compares correctly as text;
// - money is integer micro-dollars in columns named *_micros (1 USD = 1_000_000);
// - booleans are 0/1 integers, JSON documents are text.
import { integer, text } from "drizzle-orm/sqlite-core";

export const id = () => text("id").primaryKey();
export const customerId = () => text("customer_id").notNull();
export const timestamp = (name: string) => text(name);
export const createdAt = () => text("created_at").notNull();
export const updatedAt = () => text("updated_at").notNull();
export const micros = (name: string) => integer(name).notNull().default(0);
export const bool = (name: string) => integer(name, { mode: "boolean" });
export const json = <T>(name: string) => text(name, { mode: "json" }).$type<T>();
