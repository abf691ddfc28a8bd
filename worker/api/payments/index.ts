// Card payments: config, checkout for a top-up or a plan, and the provider's callback.
export { registerPayments as register } from "./routes.ts";
