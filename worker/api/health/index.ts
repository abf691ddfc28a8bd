// Service health.
export { registerHealth as register } from "./routes.ts";
