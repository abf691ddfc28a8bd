// What every exchange handler finds on its context: the app's bindings and configuration, the
// exchange's services (the Worker's Services the request came with, plus the commerce settings:
// worker/services/exchange/context.ts) and, on authenticated routes, the exchange account the
// request is from. The exchange has no principal of the customer API: its callers are exchange
// accounts, authenticated by Digest or the legacy signature.
import type { Context } from "hono";
import type { Bindings, Config } from "../env.ts";
import type { Services } from "../services/context.ts";
import type { ExchangePrincipal, ExchangeServices } from "../services/exchange/context.ts";
import { exchangeSettings } from "../services/exchange/settings.ts";

export type ExchangeEnv = {
  Bindings: Bindings;
  /** `exchange` is set by the authentication middleware, on authenticated routes only. */
  Variables: { config: Config; services: ExchangeServices; exchange: ExchangePrincipal };
};

export type ExchangeContext = Context<ExchangeEnv>;

/**
 * The exchange's services over the Worker's: the parts its verbs use, and the settings, parsed
 * when first needed (a bad eSIM setting fails the commerce endpoints, not authentication).
 */
export function exchangeServicesOf(s: Services, env: Bindings): ExchangeServices {
  return {
    db: s.db,
    config: s.config,
    ledger: s.ledger,
    limiter: s.limiter,
    get settings() {
      return exchangeSettings(env);
    },
  };
}
