// What the portal project's global setup hands every test file through vitest's provide/inject:
// where the one `npm start` stack of the run answers.

export type PortalStack = {
  /** The portal's origin for the browser: http://localhost:<port> (WebAuthn needs a domain; localhost is a secure context). */
  base: string;
  /** The same service for requests from Node: http://127.0.0.1:<port> (the local mail view answers loopback only). */
  api: string;
  /** The SIP node's UDP and TCP port on 127.0.0.1. */
  sipPort: number;
  /** The SIP node's hosted-number listener (CLI checks) on 127.0.0.1, UDP and TCP: a destination here delivers to the numbers the platform holds. */
  cliPort: number;
  /** Whether the offline transcriber runs (else calls get no transcript and verdicts rest on the call's facts). */
  transcription: boolean;
  /** A folder where test files claim loopback source addresses (one file per address), so no two accounts whitelist the same one. */
  sourcesDir: string;
  /** The demo account `npm start` printed. */
  demo: { email: string; password: string };
};

declare module "vitest" {
  export interface ProvidedContext {
    portal: PortalStack;
  }
}
