// The one place where the Worker reaches its Durable Objects: which instance serves which key.
import type { AccountLedger } from "../../durable-objects/account-ledger.ts";
import type { Limiter } from "../../durable-objects/limiter.ts";
import type { NodeHub } from "../../durable-objects/node-hub.ts";
import type { OAuthGrant } from "../../durable-objects/oauth-grant.ts";
import type { TrunkRegistry } from "../../durable-objects/trunk-registry.ts";

/** The Durable Object namespaces the Worker is bound to (part of its Bindings, worker/env.ts). */
export type DurableObjectBindings = {
  ACCOUNT_LEDGER: DurableObjectNamespace<AccountLedger>;
  TRUNK_REGISTRY: DurableObjectNamespace<TrunkRegistry>;
  NODE_HUB: DurableObjectNamespace<NodeHub>;
  LIMITER: DurableObjectNamespace<Limiter>;
  OAUTH_GRANT: DurableObjectNamespace<OAuthGrant>;
};

/** The AccountLedger of one account (exchange accounts use "exchange:<i_account>"). */
export const ledgerFor = (env: DurableObjectBindings, accountKey: string) =>
  env.ACCOUNT_LEDGER.get(env.ACCOUNT_LEDGER.idFromName(accountKey));

/** A Limiter per throttled key ("login-ip:<ip>", "signup-ip:<ip>", an exchange account's quota). */
export const limiterFor = (env: DurableObjectBindings, key: string) => env.LIMITER.get(env.LIMITER.idFromName(key));

/** The TrunkRegistry: one global instance that serialises whitelist changes. */
export const registryFor = (env: DurableObjectBindings) => env.TRUNK_REGISTRY.get(env.TRUNK_REGISTRY.idFromName("global"));

/** The NodeHub of this deployment's region (one region for now: "default"). */
export const hubFor = (env: DurableObjectBindings) => env.NODE_HUB.get(env.NODE_HUB.idFromName("default"));

/** The OAuthGrant of one agent's consent: rotation and revocation of its refresh tokens. */
export const grantFor = (env: DurableObjectBindings, grantId: string) => env.OAUTH_GRANT.get(env.OAUTH_GRANT.idFromName(grantId));

export type LedgerStub = ReturnType<typeof ledgerFor>;
export type LimiterStub = ReturnType<typeof limiterFor>;
export type GrantStub = ReturnType<typeof grantFor>;
