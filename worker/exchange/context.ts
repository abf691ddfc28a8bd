// What every exchange handler finds on its context: the app's bindings, configuration and
// database, plus, on authenticated routes, the exchange account the request is from.
import type { Context } from "hono";
import type { AppEnv } from "../http/app-env.ts";

export type ExchangeRole = "buyer" | "seller";

/** Set by the Digest and legacy-signature authentication: who is asking, and with which key. */
export type ExchangePrincipal = {
  iAccount: number;
  username: string;
  /** The role of the key that authenticated the request (a seller account may also hold a buyer key). */
  role: ExchangeRole;
  /** The account's own role. */
  accountRole: ExchangeRole;
};

export type ExchangeEnv = {
  Bindings: AppEnv["Bindings"];
  /** `exchange` is set by the authentication middleware, on authenticated routes only. */
  Variables: Omit<AppEnv["Variables"], "principal"> & { exchange: ExchangePrincipal };
};

export type ExchangeContext = Context<ExchangeEnv>;

/** What services need from a request: bindings, database, configuration. */
export const exchangeDeps = (c: Context<ExchangeEnv> | Context<AppEnv>) => ({ env: c.env, db: c.var.db, config: c.var.config });
export type ExchangeDeps = ReturnType<typeof exchangeDeps>;
