import { v7 as uuidv7 } from "uuid";

/** A new record id: UUID v7, time-ordered so new rows land at the end of their indexes. */
export const newId = (): string => uuidv7();
