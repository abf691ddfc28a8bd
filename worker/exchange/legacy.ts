// Legacy v1: <EXCHANGE_LEGACY_PREFIX>/<controller>.php with the per-request signature instead of
// Digest. Form fields (query parameters on GET):
//   api_login  the account's username
//   ts         the current Unix time; refused when more than EXCHANGE_LEGACY_WINDOW_SEC away, either way
//   signature  hex SHA-256 of controller + api_key + api_login + ts (controller: the script name without .php)
//   webapi     must be 1
// plus the controller's own fields, which are the v2 operation's (the same function answers both).
// The key is the one the operation's role needs (buyer controllers the buyer key); "any" tries
// the buyer key, then the seller key.
//
// The signature covers no parameters (the spec fixes its format), so a captured one could buy
// other packages while its `ts` is fresh. Each signature is therefore good once: it is written to
// spent_tokens (until its window closes; swept by the cron) and a reuse answers 401. The window is
// narrow (EXCHANGE_LEGACY_WINDOW_SEC, 30 s). A client calling one controller twice in a second
// sends the next second's `ts` for the second call (any `ts` inside the window is accepted).
// Money-moving calls should use HTTP Digest, whose answer covers the request.
import { z } from "zod";
import { sha256Hex } from "../lib/crypto.ts";
import { Forbidden } from "../services/errors.ts";
import { accountByUsername, decoyAccount, principalOf, provenKeyRole } from "../services/exchange/accounts.ts";
import { field, required } from "../services/exchange/fields.ts";
import { spendLegacySignature } from "../services/exchange/legacy-signatures.ts";
import { enforceRateLimit } from "../services/exchange/limits.ts";
import type { ExchangeContext } from "./context.ts";
import { runOperation, type ExchangeRouter } from "./operation.ts";
import { ExchangeError, parseFields, rawFieldsOf } from "./respond.ts";

const AUTH_FIELDS = ["api_login", "ts", "signature", "webapi"] as const;

const LegacyAuth = z.object({
  webapi: required(z.literal("1", { error: "must be 1" })),
  api_login: required(field.text(64)),
  ts: required(z.string().regex(/^\d{1,12}$/, { error: "must be a Unix timestamp in seconds" })),
  signature: required(z.string().regex(/^[0-9a-fA-F]{64}$/, { error: "must be 64 hexadecimal characters (SHA-256)" })),
});

/** sha256(controller + api_key + api_login + ts), hex. */
export const legacySignature = (controller: string, apiKey: string, apiLogin: string, ts: string) =>
  sha256Hex(`${controller}${apiKey}${apiLogin}${ts}`);

const refused = (c: ExchangeContext, message: string) =>
  new ExchangeError(401, message, { "WWW-Authenticate": `ExchangeSignature realm="${c.var.config.EXCHANGE_DIGEST_REALM}"` });

/** The controller name of a legacy path ("/lookup.php" → "lookup"); null when it is not one. */
export const controllerOf = (rest: string): string | null => /^\/([A-Za-z0-9_]+)\.php$/.exec(rest)?.[1] ?? null;

export function registerLegacy(router: ExchangeRouter): void {
  // The exchange app sees legacy requests at /v1/<controller> (app.ts maps the configured prefix).
  router.app.on(["GET", "POST"], "/v1/:controller", async (c) => {
    const controller = c.req.param("controller");
    const op = router.legacy.get(controller);
    if (!op) throw new ExchangeError(404, `unknown controller ${controller}`);
    const raw = await rawFieldsOf(c);
    const auth = parseFields(LegacyAuth, raw);
    const deps = c.var.services;

    const now = Math.floor(Date.now() / 1000);
    if (Math.abs(now - Number(auth.ts)) > deps.config.EXCHANGE_LEGACY_WINDOW_SEC) {
      throw refused(c, `ts: more than ${deps.config.EXCHANGE_LEGACY_WINDOW_SEC} s from the server's time (${now})`);
    }
    // An unknown login is checked against a decoy account: it costs what a wrong key does.
    const found = await accountByUsername(deps, auth.api_login);
    const account = found ?? (await decoyAccount(deps));
    const matched = await provenKeyRole(deps, account, op.role, auth.signature, (key) =>
      legacySignature(controller, key, auth.api_login, auth.ts),
    );
    if (!found || !matched) throw refused(c, "signature: invalid");
    const windowEndsSec = Number(auth.ts) + deps.config.EXCHANGE_LEGACY_WINDOW_SEC;
    if (!(await spendLegacySignature(deps, auth.signature, windowEndsSec))) {
      throw refused(c, "signature: already used (compute one per request; a second call in the same second takes the next ts)");
    }
    if (account.status !== "active") throw new Forbidden("account suspended");
    await enforceRateLimit(deps, account);
    c.set("exchange", principalOf(account, matched));

    const fields = { ...raw };
    for (const name of AUTH_FIELDS) delete fields[name];
    return runOperation(c, op, parseFields(op.input, fields));
  });
}
