// Authentication: configuration, signup, sign-in (password and passkey), sessions.
import type { Api } from "../context.ts";
import { registerAuth } from "./routes.ts";
import { registerSessions } from "./session-routes.ts";

export function register(api: Api): void {
  registerAuth(api);
  registerSessions(api);
}
