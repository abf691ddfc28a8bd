// Passkeys: registration, listing, renaming, removal.
export { registerPasskeys as register } from "./routes.ts";
