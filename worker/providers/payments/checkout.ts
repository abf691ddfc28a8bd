// What a payment provider does for the platform: a Checkout Session for a top-up or a plan's fee.
// Stripe implements it (stripe.ts), and so does the embedded checkout of local development (local.ts).

export type CheckoutRequest = {
  paymentId: string;
  customerId: string;
  email: string;
  kind: "topup" | "subscription";
  amountCents: number;
  description: string;
  planCode: string | null;
  successUrl: string;
  cancelUrl: string;
};

export type CheckoutSession = { sessionId: string; url: string };

export interface PaymentProvider {
  readonly name: "stripe" | "local";
  createCheckout(request: CheckoutRequest): Promise<CheckoutSession>;
}
