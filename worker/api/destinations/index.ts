// Destinations (SIP endpoints, voice-AI agents), their OPTIONS check, and the voice-AI providers.
export { registerDestinations as register } from "./routes.ts";
