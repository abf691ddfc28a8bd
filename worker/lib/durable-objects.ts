// The one place where the Worker reaches its Durable Objects: which instance serves which key.
import type { Bindings } from "../env.ts";

/** The AccountLedger of one account (exchange accounts use "exchange:<i_account>"). */
export const ledgerFor = (env: Bindings, accountKey: string) => env.ACCOUNT_LEDGER.get(env.ACCOUNT_LEDGER.idFromName(accountKey));

/** A Limiter per throttled key ("login-ip:<ip>", "signup-ip:<ip>", an exchange account's quota). */
export const limiterFor = (env: Bindings, key: string) => env.LIMITER.get(env.LIMITER.idFromName(key));

/** The TrunkRegistry: one global instance that serialises whitelist changes. */
export const registryFor = (env: Bindings) => env.TRUNK_REGISTRY.get(env.TRUNK_REGISTRY.idFromName("global"));

/** The NodeHub of this deployment's region (one region for now: "default"). */
export const hubFor = (env: Bindings) => env.NODE_HUB.get(env.NODE_HUB.idFromName("default"));

/** The OAuthGrant of one agent's consent: rotation and revocation of its refresh tokens. */
export const grantFor = (env: Bindings, grantId: string) => env.OAUTH_GRANT.get(env.OAUTH_GRANT.idFromName(grantId));

export type LedgerStub = ReturnType<typeof ledgerFor>;
export type LimiterStub = ReturnType<typeof limiterFor>;
export type GrantStub = ReturnType<typeof grantFor>;
