// Public catalogue: plans and AI tiers.
export { registerCatalogue as register } from "./routes.ts";
