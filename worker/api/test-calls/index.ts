// Test calls (the spec's "Test calls") and the verified caller IDs they use (our extension).
import type { Api } from "../context.ts";
import { registerTestCalls } from "./routes.ts";
import { registerVerifiedNumbers } from "./verified-number-routes.ts";

export function register(api: Api) {
  registerTestCalls(api);
  registerVerifiedNumbers(api);
}
