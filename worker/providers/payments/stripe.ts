// Stripe Checkout (the `stripe` library over fetch). A test-mode key (sk_test_...) works the same.
import Stripe from "stripe";
import { ProviderError } from "../provider-error.ts";
import type { CheckoutRequest, CheckoutSession, PaymentProvider } from "./checkout.ts";

export class StripeCheckout implements PaymentProvider {
  readonly name = "stripe" as const;
  private readonly stripe: Stripe;

  constructor(secretKey: string) {
    this.stripe = new Stripe(secretKey, { httpClient: Stripe.createFetchHttpClient(), maxNetworkRetries: 1, timeout: 15_000 });
  }

  async createCheckout(request: CheckoutRequest): Promise<CheckoutSession> {
    try {
      const session = await this.stripe.checkout.sessions.create({
        mode: "payment",
        customer_email: request.email,
        client_reference_id: request.customerId,
        line_items: [
          { quantity: 1, price_data: { currency: "usd", unit_amount: request.amountCents, product_data: { name: request.description } } },
        ],
        metadata: { payment_id: request.paymentId, customer_id: request.customerId, kind: request.kind, plan_code: request.planCode ?? "" },
        success_url: request.successUrl,
        cancel_url: request.cancelUrl,
      });
      if (!session.url) throw new Error("no checkout url");
      return { sessionId: session.id, url: session.url };
    } catch (err) {
      throw new ProviderError(`stripe checkout failed: ${err instanceof Error ? err.message : String(err)}`, true);
    }
  }
}
