// Callbacks from voice-AI providers to a destination's webhook URL.
export { registerVoiceWebhooks as register } from "./routes.ts";
