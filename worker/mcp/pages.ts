// Lists through MCP: `limit` and an opaque `cursor` in, `items`, `total` and `next_cursor` out.
import { z } from "@hono/zod-openapi";
import { decodeCursor, nextCursor } from "./cursor.ts";

export const MAX_TOOL_PAGE = 100;

export const pageArgs = {
  limit: z.number().int().min(1).max(MAX_TOOL_PAGE).default(20).describe(`Items per page, 1-${MAX_TOOL_PAGE}`),
  cursor: z.string().max(512).optional().describe("next_cursor from the previous page; leave out for the first page"),
};

export const pageOutput = <T extends z.ZodType>(item: T) =>
  z.object({
    items: z.array(item),
    total: z.number().int().describe("Items matching, over all pages"),
    next_cursor: z.string().nullable().describe("Pass as cursor for the next page; null on the last page"),
  });

export type ToolPage<T> = { items: T[]; total: number; next_cursor: string | null };

/** One page of a list the service answers whole (destinations, channels: a few dozen at most). */
export async function pageOfAll<T>(all: T[], args: { limit: number; cursor?: string | undefined }, filters: Record<string, unknown> = {}) {
  const offset = await decodeCursor(args.cursor, filters);
  const items = all.slice(offset, offset + args.limit);
  return { items, total: all.length, next_cursor: await nextCursor(offset, items.length, all.length, filters) } satisfies ToolPage<T>;
}
