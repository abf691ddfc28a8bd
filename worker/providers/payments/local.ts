// The embedded checkout for `npm start` and tests: the session is ours and its URL is a small page
// of ours (worker/pages/checkout.ts) whose "Pay" sends a Stripe-signed checkout.session.completed
// event to the payments webhook. No card, no network.
import type { CheckoutRequest, CheckoutSession, PaymentProvider } from "./checkout.ts";

export class LocalCheckout implements PaymentProvider {
  readonly name = "local" as const;

  private readonly origin: string;

  constructor(origin: string) {
    this.origin = origin;
  }

  async createCheckout(_request: CheckoutRequest): Promise<CheckoutSession> {
    const sessionId = `cs_local_${crypto.randomUUID().replaceAll("-", "")}`;
    return { sessionId, url: `${this.origin}/dev/checkout/${sessionId}` };
  }
}
