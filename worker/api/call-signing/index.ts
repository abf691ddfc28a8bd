// The public key of the account header every call the platform places carries.
export { registerCallSigning as register } from "./routes.ts";
