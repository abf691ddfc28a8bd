// The web dialer's token (the page itself is worker/pages/dialer.ts).
export { registerDialer as register } from "./routes.ts";
