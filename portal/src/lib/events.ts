// Portal activity for POST /customer/events: page views (the path only, never the query string)
// and features used, sent in batches of at most 50 every few seconds and when the page is hidden.
import { session } from "../session/session.ts";

type PortalEvent = { kind: "page_view"; props: { path: string } } | { kind: "feature_used"; props: { name: string } };

const MAX_PER_CALL = 50;
const queue: PortalEvent[] = [];
let timer: ReturnType<typeof setTimeout> | undefined;

function flush(keepalive = false) {
  clearTimeout(timer);
  timer = undefined;
  const token = session.current().token;
  if (!token) {
    queue.length = 0;
    return;
  }
  while (queue.length) {
    const events = queue.splice(0, MAX_PER_CALL);
    void fetch("/api/customer/events", {
      method: "POST",
      keepalive,
      headers: { "Content-Type": "application/json", Authorization: `Bearer ${token}` },
      body: JSON.stringify({ events }),
    }).catch(() => undefined);
  }
}

function push(event: PortalEvent) {
  queue.push(event);
  if (queue.length >= MAX_PER_CALL) flush();
  else timer ??= setTimeout(flush, 5_000);
}

addEventListener("visibilitychange", () => document.visibilityState === "hidden" && flush(true));

export const pageView = (path: string) => push({ kind: "page_view", props: { path: path.split(/[?#]/)[0] || "/" } });
export const featureUsed = (name: string) => push({ kind: "feature_used", props: { name } });
