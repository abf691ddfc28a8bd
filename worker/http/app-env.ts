// What every HTTP handler of every front door (api/, oauth/, exchange/, internal/, pages/) finds on
// its context: the bindings, the parsed configuration, the request's Services (the domain layer's
// context) and, on authenticated routes, the principal.
import type { Bindings, Config } from "../env.ts";
import type { Db } from "../lib/db.ts";
import type { Services } from "../services/context.ts";
import type { Principal } from "../services/identity/principal.ts";

export type AppEnv = {
  Bindings: Bindings;
  /** principal is set by the access middleware on authenticated routes only. */
  Variables: { config: Config; db: Db; services: Services; principal: Principal };
};
