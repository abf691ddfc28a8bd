// API keys for scripts: list, mint (shown once), revoke.
export { registerApiKeys as register } from "./routes.ts";
