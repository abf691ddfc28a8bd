// Portal activity (spec: Events rule 5): page views and feature use, stored per account and
// user. Only the path of a page is kept (never its query string or fragment, where form values
// and tokens end up), and only the one prop each kind has.
import { portalEvents } from "../../../schema/events.ts";
import { d1Chunks, paramsPerRow, runBatch } from "../../lib/db.ts";
import { newId } from "../../lib/ids.ts";
import { nowIso } from "../../lib/time.ts";
import type { PortalEvents } from "../../resources/events.ts";
import type { Services } from "../context.ts";
import type { Principal } from "../identity/principal.ts";

/** "/calls/42?q=secret#x" → "/calls/42"; a full URL gives its path. */
export function pathOnly(raw: string): string {
  let path = raw;
  try {
    if (/^[a-z][a-z0-9+.-]*:\/\//i.test(raw)) path = new URL(raw).pathname;
  } catch {
    // not a URL: cut by hand below
  }
  path = path.split(/[?#]/, 1)[0]!;
  return path.startsWith("/") ? path : `/${path}`;
}

export async function recordPortalEvents(s: Services, principal: Principal, input: PortalEvents): Promise<{ count: number }> {
  const at = nowIso();
  const rows: Array<typeof portalEvents.$inferInsert> = input.events.map((event) => ({
    id: newId(),
    customerId: principal.customer.id,
    userId: principal.user.id,
    kind: event.kind,
    props: (event.kind === "page_view" ? { path: pathOnly(event.props.path) } : { name: event.props.name }) as Record<string, string>,
    createdAt: at,
  }));
  await runBatch(
    s.db,
    d1Chunks(rows, paramsPerRow(portalEvents)).map((chunk) => s.db.insert(portalEvents).values(chunk)),
  );
  return { count: rows.length };
}
