// The trunk: ingress address and whitelisted source addresses.
export { registerWhitelist as register } from "./routes.ts";
