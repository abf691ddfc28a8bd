// Operator endpoints of the exchange, under <prefix>/admin: create accounts, rotate keys, credit
// balances. Bearer EXCHANGE_ADMIN_TOKEN, a secret of its own (never a node's token: the config
// refuses one equal to a node token); without it the endpoints are closed (503). Used by
// `npm run exchange` (scripts/exchange.mjs) and by the start command's demo accounts. Not part of
// the published API.
import { Hono } from "hono";
import { z } from "zod";
import { timingSafeEqual } from "../lib/crypto.ts";
import { toUsd } from "../lib/money.ts";
import { newId } from "../lib/ids.ts";
import { createExchangeAccount, creditAccount, ROLES, rotateApiKey, setDigestMd5 } from "../services/exchange/accounts.ts";
import { field, optional, required } from "../services/exchange/fields.ts";
import type { ExchangeEnv } from "./context.ts";
import { ExchangeError, formOf, parseFields, success } from "./respond.ts";

const encoder = new TextEncoder();

const role = z.enum(ROLES, { error: "must be buyer or seller" });

/** "1"/"true" or "0"/"false" (form fields are text). */
const flag = z.enum(["1", "0", "true", "false"], { error: "must be 1 or 0" }).transform((v) => v === "1" || v === "true");

const NewAccountFields = z.object({
  role: required(role),
  digest_md5: optional(flag),
  username: optional(field.text(64)),
  balance: optional(field.usd()),
  hourly_quota: optional(field.integer(1)),
  per_second_cap: optional(field.integer(1)),
});

const iAccountParam = z.object({ i_account: required(field.integer(1)) });

export function newAdminApp(): Hono<ExchangeEnv> {
  const admin = new Hono<ExchangeEnv>();
  admin.use("*", async (c, next) => {
    const expected = c.var.config.EXCHANGE_ADMIN_TOKEN;
    if (!expected) throw new ExchangeError(503, "the admin endpoints are closed: EXCHANGE_ADMIN_TOKEN is not set");
    const presented = /^Bearer\s+(.+)$/i.exec(c.req.header("Authorization") ?? "")?.[1] ?? "";
    if (!timingSafeEqual(encoder.encode(presented), encoder.encode(expected))) {
      throw new ExchangeError(401, "admin token required", { "WWW-Authenticate": "Bearer" });
    }
    await next();
  });

  admin.post("/accounts", async (c) => {
    const input = await formOf(c, NewAccountFields);
    const created = await createExchangeAccount(c.var.services, {
      role: input.role,
      username: input.username,
      balanceUsd: input.balance,
      hourlyQuota: input.hourly_quota,
      perSecondCap: input.per_second_cap,
      digestMd5: input.digest_md5,
    });
    return success(
      c,
      { i_account: created.iAccount, username: created.username, role: created.role, api_key: created.apiKey, balance: created.balanceUsd },
      201,
    );
  });

  admin.post("/accounts/:i_account/keys", async (c) => {
    const { i_account } = parseFields(iAccountParam, c.req.param());
    const input = await formOf(c, z.object({ role: required(role) }));
    const rotated = await rotateApiKey(c.var.services, i_account, input.role);
    return success(c, { i_account, username: rotated.username, role: input.role, api_key: rotated.apiKey });
  });

  // Digest with MD5 for an account's old clients (SHA-256 is always accepted).
  admin.post("/accounts/:i_account/digest-md5", async (c) => {
    const { i_account } = parseFields(iAccountParam, c.req.param());
    const input = await formOf(c, z.object({ enabled: required(flag) }));
    await setDigestMd5(c.var.services, i_account, input.enabled);
    return success(c, { i_account, digest_md5: input.enabled });
  });

  admin.post("/accounts/:i_account/credit", async (c) => {
    const { i_account } = parseFields(iAccountParam, c.req.param());
    const input = await formOf(
      c,
      z.object({ amount: required(field.usd()), reference: optional(field.text(100)), description: optional(field.text(200)) }),
    );
    const entryId = `exchange-credit:${i_account}:${input.reference ?? newId()}`;
    const after = await creditAccount(c.var.services, i_account, input.amount, entryId, input.description ?? null);
    return success(c, { i_account, balance: toUsd(after), currency: "USD" });
  });
  return admin;
}
