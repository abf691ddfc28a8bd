// Opaque list cursors: base64url of {o: offset, f: fingerprint of the filters}. A cursor only
// continues the query it came from; one from another query, or one that does not decode, is a
// tool error naming the cursor, so the agent starts again from the first page.
import { base64url, fromBase64url, sha256Hex } from "../lib/crypto.ts";
import { InvalidField } from "../services/errors.ts";

const STALE = "this cursor does not belong to this query: repeat the same filters, or leave cursor out to start from the first page";

async function fingerprint(filters: Record<string, unknown>): Promise<string> {
  const canonical = Object.keys(filters)
    .filter((key) => filters[key] !== undefined)
    .sort()
    .map((key) => [key, filters[key]]);
  return (await sha256Hex(JSON.stringify(canonical))).slice(0, 16);
}

export async function encodeCursor(offset: number, filters: Record<string, unknown>): Promise<string> {
  const body = JSON.stringify({ o: offset, f: await fingerprint(filters) });
  return base64url(new TextEncoder().encode(body));
}

/** The offset a cursor continues from (0 without one). */
export async function decodeCursor(cursor: string | undefined, filters: Record<string, unknown>): Promise<number> {
  if (cursor === undefined) return 0;
  let parsed: unknown;
  try {
    parsed = JSON.parse(new TextDecoder().decode(fromBase64url(cursor)));
  } catch {
    throw new InvalidField("cursor", "not a cursor this server issued: pass next_cursor exactly as a list answered it");
  }
  const { o, f } = (parsed ?? {}) as { o?: unknown; f?: unknown };
  if (typeof o !== "number" || !Number.isSafeInteger(o) || o < 0 || typeof f !== "string") {
    throw new InvalidField("cursor", "not a cursor this server issued: pass next_cursor exactly as a list answered it");
  }
  if (f !== (await fingerprint(filters))) throw new InvalidField("cursor", STALE);
  return o;
}

/** The next page's cursor, or null on the last page. */
export async function nextCursor(offset: number, returned: number, total: number, filters: Record<string, unknown>) {
  const next = offset + returned;
  return returned > 0 && next < total ? encodeCursor(next, filters) : null;
}
