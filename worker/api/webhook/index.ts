// The account webhook: settings, test, delivery log, and the events it sends (OpenAPI webhooks).
export { registerWebhook as register } from "./routes.ts";
