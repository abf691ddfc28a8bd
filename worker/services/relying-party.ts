import type { Services } from "./context.ts";

export type RelyingParty = { id: string; origin: string; name: string };

/** Who the passkeys belong to: configured, or else the host and origin the service is reached at. */
export function relyingParty({ config, origin }: Pick<Services, "config" | "origin">): RelyingParty {
  return {
    id: config.WEBAUTHN_RP_ID ?? new URL(origin).hostname,
    origin: config.WEBAUTHN_ORIGIN ?? origin,
    name: config.WEBAUTHN_RP_NAME,
  };
}
