// The WebAuthn relying party: whose passkeys these are and which origin may use them. Pinned by
// configuration (WEBAUTHN_RP_ID, WEBAUTHN_ORIGIN): taking them from the request's Host would let
// any hostname that reaches the Worker (a workers.dev name, a misrouted or attacker-fronted
// domain) become a relying party. Only a loopback request (`npm start` on this machine) falls
// back to its own host.
import type { Services } from "../context.ts";
import { Unavailable } from "../errors.ts";

export type RelyingParty = { id: string; origin: string; name: string };

const LOOPBACK_HOSTS = /^(localhost|127(\.\d{1,3}){3}|\[::1\])$/i;

/** Who the passkeys belong to: the configured relying party, or on loopback the host the request came to. */
export function relyingParty({ config, origin }: Pick<Services, "config" | "origin">): RelyingParty {
  const name = config.WEBAUTHN_RP_NAME;
  if (config.WEBAUTHN_RP_ID && config.WEBAUTHN_ORIGIN) return { id: config.WEBAUTHN_RP_ID, origin: config.WEBAUTHN_ORIGIN, name };
  const url = new URL(origin);
  if (!LOOPBACK_HOSTS.test(url.hostname)) throw new Unavailable("passkeys_not_configured");
  return { id: config.WEBAUTHN_RP_ID ?? url.hostname, origin: config.WEBAUTHN_ORIGIN ?? origin, name };
}
