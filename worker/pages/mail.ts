// The local mail view: the embedded outbox as a page (GET /dev/mail) and as JSON (GET
// /dev/mail.json, what `npm run mail` prints), newest first. Served only when the outbox is the
// mail provider, LOCAL_MAIL_VIEW is on (only `npm start` sets it) and the request comes from
// loopback; otherwise the app's plain 404, so a deployed Worker shows nothing of it.
// Optional query: to=<address> (one recipient), limit=<n> (default 50, at most 500).
import { Hono, type Context } from "hono";
import type { Bindings, Config } from "../env.ts";
import type { Services } from "../services/context.ts";
import { latestOutboxMail, localMailViewEnabled, type OutboxMessage } from "../services/alerts/outbox.ts";

type PagesEnv = { Bindings: Bindings; Variables: { config: Config; services: Services } };

/**
 * A loopback client. `wrangler dev` (miniflare) sets CF-Connecting-IP to the peer's address when
 * the request has none (127.0.0.1 or ::1 from this machine); a request made inside the runtime
 * (tests) carries none. Cloudflare's edge always sets it to the real client, so behind it this is
 * never true; the flag, not this check, is what keeps a deployed Worker from serving the page.
 */
export function fromLoopback(ip: string | undefined): boolean {
  if (ip === undefined) return true;
  const address = ip.trim().toLowerCase();
  return address === "::1" || /^(::ffff:)?127(\.\d{1,3}){3}$/.test(address);
}

const PAGE_HEADERS = {
  "Cache-Control": "no-store",
  "Content-Security-Policy": "default-src 'none'; style-src 'unsafe-inline'",
  "X-Content-Type-Options": "nosniff",
  "Referrer-Policy": "no-referrer",
};

export function newMailPages(): Hono<PagesEnv> {
  const pages = new Hono<PagesEnv>();
  pages.use("*", async (c, next) => {
    if (!localMailViewEnabled(c.var.config) || !fromLoopback(c.req.header("CF-Connecting-IP"))) return c.notFound();
    await next();
  });
  pages.get("/mail.json", async (c) => c.json({ messages: await messagesOf(c) }, 200, PAGE_HEADERS));
  pages.get("/mail", async (c) => c.html(renderOutbox(await messagesOf(c), c.req.query("to")), 200, PAGE_HEADERS));
  return pages;
}

function messagesOf(c: Context<PagesEnv>): Promise<OutboxMessage[]> {
  const limit = Number.parseInt(c.req.query("limit") ?? "", 10);
  const to = c.req.query("to") || undefined;
  return latestOutboxMail(c.var.services, { to, limit: Number.isFinite(limit) ? limit : undefined });
}

/** Text made safe for HTML content and attribute values. */
export function escapeHtml(value: string): string {
  return value.replace(/[&<>"']/g, (ch) => `&#${ch.charCodeAt(0)};`);
}

function renderOutbox(messages: OutboxMessage[], to: string | undefined): string {
  const items = messages.map(
    (m) => `<article>
  <header><b>${escapeHtml(m.subject)}</b><br>to ${escapeHtml(m.to.join(", "))} · <time datetime="${escapeHtml(m.created_at)}">${escapeHtml(m.created_at)}</time></header>
  <pre>${escapeHtml(m.text)}</pre>
</article>`,
  );
  const filter = to ? ` to ${escapeHtml(to)}` : "";
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Outbox (local)</title>
<style>
body { font: 15px/1.4 system-ui, sans-serif; margin: 2rem auto; max-width: 56rem; padding: 0 1rem; color: #222; }
article { border: 1px solid #ccc; border-radius: 6px; margin: 1rem 0; padding: 0.75rem 1rem; }
header { color: #555; }
header b { color: #222; }
pre { white-space: pre-wrap; word-break: break-word; background: #f6f6f6; padding: 0.5rem; }
</style>
</head>
<body>
<h1>Outbox${filter}</h1>
<p>Mail kept by the embedded mail adapter (MAIL_PROVIDER=outbox) on this machine, newest first. Nothing here was sent. Reload for new messages; <code>npm run mail</code> prints the same.</p>
${items.length ? items.join("\n") : "<p>No mail yet.</p>"}
</body>
</html>
`;
}
