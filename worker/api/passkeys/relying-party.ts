import type { Config } from "../../env.ts";

export type RelyingParty = { id: string; origin: string; name: string };

/** Who the passkeys belong to: configured, or else the host and origin the request came to. */
export function relyingParty(requestUrl: string, config: Config): RelyingParty {
  const url = new URL(requestUrl);
  return {
    id: config.WEBAUTHN_RP_ID ?? url.hostname,
    origin: config.WEBAUTHN_ORIGIN ?? url.origin,
    name: config.WEBAUTHN_RP_NAME,
  };
}
