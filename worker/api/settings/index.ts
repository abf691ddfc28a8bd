// Account settings: tax id, data location, low-balance alert, billing address.
export { registerSettings as register } from "./routes.ts";
