// Portal activity events.
export { registerPortalEvents as register } from "./routes.ts";
