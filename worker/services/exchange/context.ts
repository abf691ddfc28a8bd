// What the exchange's verbs use besides their input: the Worker's Services (the parts the
// exchange touches: D1, configuration, the AccountLedger and Limiter Durable Objects) and the
// commerce settings, which are vars of the exchange's own (settings.ts) rather than Config; and
// the caller, who an authenticated exchange request is from.
import type { Services } from "../context.ts";
import type { ExchangeSettings } from "./settings.ts";

export type ExchangeServices = Pick<Services, "db" | "config" | "ledger" | "limiter"> & { settings: ExchangeSettings };

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
