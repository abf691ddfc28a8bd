// One pagination shape for every list: ?limit&offset in, {total, limit, offset, items} out,
// with the bounds of the spec's Limits table.
import { z } from "@hono/zod-openapi";

export const MAX_OFFSET = 2_147_483_647;

export type PageBounds = { max: number; default: number };
/** calls, ledger, controlled numbers */
export const WIDE_PAGE: PageBounds = { max: 500, default: 50 };
/** cases, tickets */
export const NARROW_PAGE: PageBounds = { max: 200, default: 50 };

export function pageQuery(bounds: PageBounds = WIDE_PAGE) {
  return z.object({
    limit: z.coerce
      .number()
      .int()
      .min(1)
      .max(bounds.max)
      .default(bounds.default)
      .openapi({ description: `Items per page, 1-${bounds.max}.`, example: bounds.default }),
    offset: z.coerce.number().int().min(0).max(MAX_OFFSET).default(0).openapi({ description: "Items to skip.", example: 0 }),
  });
}

export type PageParams = { limit: number; offset: number };
export type Page<T> = PageParams & { total: number; items: T[] };

export function pageOf<T extends z.ZodType>(item: T, name: string) {
  return z
    .object({
      total: z.number().int().openapi({ example: 1 }),
      limit: z.number().int().openapi({ example: 50 }),
      offset: z.number().int().openapi({ example: 0 }),
      items: z.array(item),
    })
    .openapi(name);
}

export const page = <T>(items: T[], total: number, params: PageParams): Page<T> => ({
  total,
  limit: params.limit,
  offset: params.offset,
  items,
});
