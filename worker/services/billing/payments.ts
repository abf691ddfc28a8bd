// Card payments: the payments config, Checkout Sessions for a top-up or a plan's first month, and
// the provider's signed callback, which credits the balance exactly once per payment however
// often, and in whatever order, the provider delivers its events.
import { and, eq } from "drizzle-orm";
import { v5 as uuidv5 } from "uuid";
import { paymentEvents, payments } from "../../../schema/billing.ts";
import { customers } from "../../../schema/identity.ts";
import { paymentSetup, type PaymentSetup } from "../../providers/payments/payments.ts";
import { verifyEvent, type StripeEvent } from "../../providers/payments/signature.ts";
import { ProviderError } from "../../providers/provider-error.ts";
import { toMicros, toUsd } from "../../lib/money.ts";
import { newId } from "../../lib/ids.ts";
import { nowIso } from "../../lib/time.ts";
import { describeError } from "../../lib/errors.ts";
import { DEFAULT_PLAN } from "../identity/auth.ts";
import { findPlan } from "./catalogue.ts";
import type { Services } from "../context.ts";
import { Conflict, InvalidField, NotFound, Refused, UpstreamFailed } from "../errors.ts";
import { changePlan } from "./plans.ts";
import type { Principal } from "../identity/principal.ts";

export const PRESET_AMOUNTS = [25, 50, 100, 250];
export const MIN_CUSTOM_AMOUNT = 10;
const MAX_AMOUNT = 10_000;
const CENT_MICROS = 10_000;
/** Namespace of the ledger entry ids of card payments (UUID v5 of the payment's id). */
const PAYMENT_CREDIT_NAMESPACE = "c1f7a3e0-4b9d-4f0e-8f5a-2d6b9e3c7a15";

const setupOf = (s: Services) => paymentSetup(s.config, s.origin);

/** Where the payment provider sends the browser back: the portal's billing page, which says how the checkout went. */
export const checkoutReturn = (origin: string, outcome: "success" | "cancelled") => `${origin}/app/billing?checkout=${outcome}`;

export async function paymentsConfig(s: Services) {
  const setup = await setupOf(s);
  return {
    enabled: setup !== null,
    publishable_key: setup?.publishableKey ?? "",
    currency: "usd",
    preset_amounts: PRESET_AMOUNTS,
    min_custom_amount: MIN_CUSTOM_AMOUNT,
  };
}

function amountMicros(amount: number | string): number {
  let micros: number;
  try {
    micros = toMicros(amount);
  } catch {
    throw new InvalidField("amount", "amount must be a number of US dollars, such as 25 or 42.50");
  }
  if (micros % CENT_MICROS !== 0) throw new InvalidField("amount", "amount must be whole cents");
  if (micros < MIN_CUSTOM_AMOUNT * 1_000_000) throw new InvalidField("amount", `the smallest payment is US$${MIN_CUSTOM_AMOUNT}`);
  if (micros > MAX_AMOUNT * 1_000_000) throw new InvalidField("amount", `the largest payment is US$${MAX_AMOUNT}`);
  return micros;
}

async function openCheckout(
  s: Services,
  principal: Principal,
  setup: NonNullable<PaymentSetup>,
  order: { kind: "topup" | "subscription"; micros: number; description: string; planCode: string | null },
) {
  const paymentId = newId();
  let session;
  try {
    session = await setup.provider.createCheckout({
      paymentId,
      customerId: principal.customer.id,
      email: principal.customer.email,
      kind: order.kind,
      amountCents: order.micros / CENT_MICROS,
      description: order.description,
      planCode: order.planCode,
      successUrl: checkoutReturn(s.origin, "success"),
      cancelUrl: checkoutReturn(s.origin, "cancelled"),
    });
  } catch (err) {
    if (err instanceof ProviderError) throw new UpstreamFailed("Payment provider error");
    throw err;
  }
  await s.db.insert(payments).values({
    id: paymentId,
    customerId: principal.customer.id,
    provider: setup.provider.name,
    providerSessionId: session.sessionId,
    kind: order.kind,
    amountMicros: order.micros,
    planCode: order.planCode,
    createdBy: principal.user.email,
    createdAt: nowIso(),
  });
  return { session_id: session.sessionId, url: session.url };
}

const requireSetup = async (s: Services) => {
  const setup = await setupOf(s);
  if (!setup) throw new Conflict("Card payments are not enabled");
  return setup;
};

/** A Checkout Session for a top-up of `amount` US dollars. */
export async function checkout(s: Services, principal: Principal, input: { amount: number | string }) {
  const micros = amountMicros(input.amount);
  const setup = await requireSetup(s);
  return openCheckout(s, principal, setup, {
    kind: "topup",
    micros,
    description: `Call Shield credit US$${toUsd(micros).toFixed(2)}`,
    planCode: null,
  });
}

/** A Checkout Session for a plan's first month: once paid, the fee is credited and the plan bought with it. */
export async function subscribe(s: Services, principal: Principal, input: { plan_code: string }) {
  const plan = await findPlan(s, input.plan_code);
  if (!plan || !plan.active) throw new NotFound("Plan not found");
  if (plan.code === DEFAULT_PLAN || plan.monthlyFeeMicros === 0) throw new Refused("Pay-as-you-go has no monthly fee");
  if (plan.code === principal.customer.planCode) throw new Conflict("Already subscribed to this plan");
  const setup = await requireSetup(s);
  return openCheckout(s, principal, setup, {
    kind: "subscription",
    micros: plan.monthlyFeeMicros,
    description: `${plan.name} plan, first month`,
    planCode: plan.code,
  });
}

/**
 * POST /webhooks/payments: verifies the signature over the raw body, records the event once by its
 * id, and credits a completed checkout's payment once (the ledger entry id follows from the payment,
 * so a second event for the same session, redelivered or not, credits nothing).
 */
export async function handlePaymentEvent(s: Services, rawBody: string, signature: string | undefined) {
  const setup = await setupOf(s);
  const event = setup ? await verifyEvent(rawBody, signature, setup.webhookSecret) : null;
  if (!setup || !event) throw new Refused("Invalid signature");
  const recorded = await s.db
    .insert(paymentEvents)
    .values({
      id: newId(),
      provider: setup.provider.name,
      providerEventId: event.id,
      type: event.type,
      payload: event as never,
      createdAt: nowIso(),
    })
    .onConflictDoNothing()
    .returning({ id: paymentEvents.id });
  const eventRow =
    recorded[0] ??
    (await s.db
      .select({ id: paymentEvents.id, processedAt: paymentEvents.processedAt })
      .from(paymentEvents)
      .where(and(eq(paymentEvents.provider, setup.provider.name), eq(paymentEvents.providerEventId, event.id)))
      .get());
  if (eventRow && "processedAt" in eventRow && eventRow.processedAt) return { received: true as const, duplicate: true };
  let error: string | null = null;
  let paymentId: string | null = null;
  let customerId: string | null = null;
  try {
    const outcome = await apply(s, event);
    paymentId = outcome?.paymentId ?? null;
    customerId = outcome?.customerId ?? null;
  } catch (err) {
    error = describeError(err);
    console.error(`payment event ${event.id} failed`, error);
  }
  await s.db
    .update(paymentEvents)
    .set({ processedAt: error ? null : nowIso(), error, paymentId, customerId })
    .where(eq(paymentEvents.id, eventRow!.id));
  // A failure is answered 500 so the provider delivers the event again.
  if (error) throw new Error(`payment event ${event.id}: ${error}`);
  return { received: true as const, duplicate: false };
}

async function apply(s: Services, event: StripeEvent): Promise<{ paymentId: string; customerId: string } | null> {
  if (event.type !== "checkout.session.completed" && event.type !== "checkout.session.async_payment_succeeded") return null;
  const session = event.data.object as { id?: string; payment_status?: string; amount_total?: number; currency?: string };
  if (session.payment_status !== "paid" && session.payment_status !== "no_payment_required") return null;
  const payment = await s.db
    .select()
    .from(payments)
    .where(eq(payments.providerSessionId, String(session.id)))
    .get();
  if (!payment) return null;
  if (session.amount_total !== undefined && session.amount_total * CENT_MICROS !== payment.amountMicros) {
    throw new Error(`amount ${session.amount_total} cents differs from the payment's ${payment.amountMicros} micros`);
  }
  const credited = await s.ledger(payment.customerId).credit({
    entryId: uuidv5(payment.id, PAYMENT_CREDIT_NAMESPACE),
    type: "topup",
    amountMicros: payment.amountMicros,
    description: payment.kind === "subscription" ? `Card payment for the ${payment.planCode} plan` : "Card payment",
    createdAt: nowIso(),
  });
  if (!credited.ok) throw new Error(`credit refused: ${credited.reason}`);
  const completed = await s.db
    .update(payments)
    .set({ status: "complete", completedAt: nowIso() })
    .where(and(eq(payments.id, payment.id), eq(payments.status, "pending")))
    .returning({ id: payments.id });
  if (completed.length === 1 && payment.kind === "subscription" && payment.planCode) {
    const customer = await s.db.select().from(customers).where(eq(customers.id, payment.customerId)).get();
    // The card paid the fee into the balance; buying the plan takes it from there (on the plan already: kept as credit).
    if (customer && customer.planCode !== payment.planCode) await changePlan(s, customer, payment.planCode).catch(() => null);
  }
  return { paymentId: payment.id, customerId: payment.customerId };
}

/** The local checkout's payment behind a session id; null unless the local provider is the one configured. */
export async function localCheckoutPayment(s: Services, sessionId: string) {
  const setup = await setupOf(s);
  if (setup?.provider.name !== "local") return null;
  const payment = await s.db
    .select()
    .from(payments)
    .where(and(eq(payments.providerSessionId, sessionId), eq(payments.provider, "local")))
    .get();
  return payment ? { payment, webhookSecret: setup.webhookSecret } : null;
}

/** The event Stripe sends when a Checkout Session is paid, for the local checkout's session. */
export function completedCheckoutEvent(payment: typeof payments.$inferSelect) {
  return {
    id: `evt_local_${crypto.randomUUID().replaceAll("-", "")}`,
    object: "event",
    type: "checkout.session.completed",
    created: Math.floor(Date.now() / 1000),
    livemode: false,
    data: {
      object: {
        id: payment.providerSessionId,
        object: "checkout.session",
        mode: "payment",
        status: "complete",
        payment_status: "paid",
        amount_total: payment.amountMicros / CENT_MICROS,
        currency: payment.currency,
        client_reference_id: payment.customerId,
        metadata: { payment_id: payment.id, customer_id: payment.customerId, kind: payment.kind, plan_code: payment.planCode ?? "" },
      },
    },
  };
}
