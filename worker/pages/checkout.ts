// The local checkout (payments provider "local", `npm start` and tests only): the page a checkout
// session's URL opens, and its "Pay" button, which sends the session's checkout.session.completed
// event signed with the webhook secret exactly as Stripe signs it, through the same verification
// as POST /api/webhooks/payments, then goes back to the portal's billing page as Stripe goes to the
// session's success URL (a cancel link goes to its cancel URL). Anywhere else (Stripe configured,
// payments off, not loopback): 404.
import { Hono } from "hono";
import type { Bindings, Config } from "../env.ts";
import { signEvent } from "../providers/payments/signature.ts";
import type { Services } from "../services/context.ts";
import { checkoutReturn, completedCheckoutEvent, handlePaymentEvent, localCheckoutPayment } from "../services/billing/payments.ts";
import { escapeHtml, fromLoopback } from "./mail.ts";

type PagesEnv = { Bindings: Bindings; Variables: { config: Config; services: Services } };

const PAGE_HEADERS = {
  "Cache-Control": "no-store",
  "Content-Security-Policy": "default-src 'none'; style-src 'unsafe-inline'; form-action 'self'",
  "X-Content-Type-Options": "nosniff",
  "Referrer-Policy": "no-referrer",
};

const page = (body: string, returnTo?: string) =>
  `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Local checkout</title>` +
  (returnTo ? `<meta http-equiv="refresh" content="1;url=${escapeHtml(returnTo)}">` : "") +
  `<style>body{font:16px system-ui;max-width:28rem;margin:3rem auto}button{font-size:1rem;padding:.5rem 1.5rem}</style></head>` +
  `<body><h1>Local checkout</h1><p>No card is charged: this page stands in for the payment provider on this machine.</p>${body}</body></html>`;

export function newCheckoutPages(): Hono<PagesEnv> {
  const pages = new Hono<PagesEnv>();
  pages.get("/:session", async (c) => {
    const found = fromLoopback(c.req.header("CF-Connecting-IP"))
      ? await localCheckoutPayment(c.var.services, c.req.param("session"))
      : null;
    if (!found) return c.notFound();
    const { payment } = found;
    const what = payment.kind === "subscription" ? `the ${escapeHtml(payment.planCode ?? "")} plan's first month` : "credit";
    const amount = (payment.amountMicros / 1_000_000).toFixed(2);
    const origin = new URL(c.req.url).origin;
    const body =
      payment.status === "complete"
        ? `<p>Paid: US$${amount} for ${what}.</p><p><a href="${escapeHtml(checkoutReturn(origin, "success"))}">Back to billing</a></p>`
        : `<p>US$${amount} for ${what}.</p><form method="post" action="${escapeHtml(payment.providerSessionId)}/pay"><button>Pay</button></form>` +
          `<p><a href="${escapeHtml(checkoutReturn(origin, "cancelled"))}">Cancel and go back</a></p>`;
    return c.html(page(body), 200, PAGE_HEADERS);
  });
  pages.post("/:session/pay", async (c) => {
    const found = fromLoopback(c.req.header("CF-Connecting-IP"))
      ? await localCheckoutPayment(c.var.services, c.req.param("session"))
      : null;
    if (!found) return c.notFound();
    const payload = JSON.stringify(completedCheckoutEvent(found.payment));
    const signature = await signEvent(payload, found.webhookSecret);
    await handlePaymentEvent(c.var.services, payload, signature);
    const back = checkoutReturn(new URL(c.req.url).origin, "success");
    return c.html(
      page(
        `<p>Paid: US$${(found.payment.amountMicros / 1_000_000).toFixed(2)}. Going back to <a href="${escapeHtml(back)}">billing</a>…</p>`,
        back,
      ),
      200,
      PAGE_HEADERS,
    );
  });
  return pages;
}
