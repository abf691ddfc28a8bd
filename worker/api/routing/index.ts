// Prefix routing rules.
export { registerRouting as register } from "./routes.ts";
