// Exchange accounts: buyers and sellers keyed by an integer i_account, a platform username and
// separate buyer and seller API keys. Keys are kept AES-GCM encrypted (worker/lib/secrets.ts,
// bound to "exchange:<i_account>:<role>_key"), not hashed: HTTP Digest and the legacy signature
// both need the key itself. Balances live in the account's AccountLedger (ledger.ts).
import { eq } from "drizzle-orm";
import { exchangeAccounts } from "../../../schema/exchange.ts";
import { randomToken, timingSafeEqual } from "../../lib/crypto.ts";
import { isUniqueViolation } from "../../lib/db.ts";
import { toUsd } from "../../lib/money.ts";
import { decryptSecret, encryptSecret } from "../../lib/secrets.ts";
import { nowIso } from "../../lib/time.ts";
import type { ExchangePrincipal, ExchangeRole, ExchangeServices } from "./context.ts";
import { conflict, invalidInput, unknown } from "./errors.ts";
import { userhashOf } from "./hash.ts";
import { credit, usdToMicros } from "./ledger.ts";

export type ExchangeAccount = typeof exchangeAccounts.$inferSelect;

export const ROLES = ["buyer", "seller"] as const;

const keyContext = (iAccount: number, role: ExchangeRole) => `exchange:${iAccount}:${role}_key`;

/** Usernames: what a Digest header and a form field carry without quoting trouble. */
export const USERNAME_PATTERN = /^[A-Za-z0-9][A-Za-z0-9._@-]{2,63}$/;

/** An API key: a role prefix and 32 random bytes, URL-safe (no ":" so it fits curl -u user:key). */
export const newApiKey = (role: ExchangeRole) => `${role === "buyer" ? "xb" : "xs"}_${randomToken(32)}`;

/** May an account of this role hold a key of that role? Sellers may also buy; buyers do not sell. */
export const mayHoldKey = (accountRole: ExchangeRole, keyRole: ExchangeRole) => accountRole === "seller" || keyRole === "buyer";

export type NewAccount = {
  role: ExchangeRole;
  username?: string | undefined;
  /** Opening balance in USD (decimal text or number), credited through the AccountLedger. */
  balanceUsd?: string | number | undefined;
  hourlyQuota?: number | null | undefined;
  perSecondCap?: number | null | undefined;
  /** Accept Digest answers computed with MD5 (off unless asked). */
  digestMd5?: boolean | undefined;
};

export type CreatedAccount = { iAccount: number; username: string; role: ExchangeRole; apiKey: string; balanceUsd: number };

/** H(username ":" realm) for both algorithms, for userhash=true lookups (RFC 7616 section 3.4.4). */
async function userhashes(username: string, realm: string) {
  const [sha256, md5] = await Promise.all([userhashOf("SHA-256", username, realm), userhashOf("MD5", username, realm)]);
  return { userhashSha256: sha256, userhashMd5: md5 };
}

export async function createExchangeAccount(s: ExchangeServices, input: NewAccount): Promise<CreatedAccount> {
  const username =
    input.username ??
    `${input.role}-${randomToken(6)
      .toLowerCase()
      .replace(/[^a-z0-9]/g, "x")}`;
  if (!USERNAME_PATTERN.test(username)) {
    throw invalidInput("username", "3 to 64 letters, digits, '.', '_', '@' or '-', starting with a letter or digit");
  }
  const openingMicros = input.balanceUsd === undefined ? 0 : usdToMicros("balance", input.balanceUsd);
  if (openingMicros < 0) throw invalidInput("balance", "must not be negative");
  const now = nowIso();
  let iAccount: number;
  try {
    const [row] = await s.db
      .insert(exchangeAccounts)
      .values({
        username,
        role: input.role,
        hourlyQuota: input.hourlyQuota ?? null,
        perSecondCap: input.perSecondCap ?? null,
        digestMd5: input.digestMd5 ?? false,
        ...(await userhashes(username, s.config.EXCHANGE_DIGEST_REALM)),
        createdAt: now,
        updatedAt: now,
      })
      .returning({ iAccount: exchangeAccounts.iAccount });
    iAccount = row!.iAccount;
  } catch (err) {
    if (isUniqueViolation(err)) throw conflict("username", "already taken");
    throw err;
  }
  const apiKey = newApiKey(input.role);
  const sealed = await encryptSecret(s.config.ENCRYPTION_KEY, apiKey, keyContext(iAccount, input.role));
  await s.db
    .update(exchangeAccounts)
    .set(input.role === "buyer" ? { buyerKeyEnc: sealed } : { sellerKeyEnc: sealed })
    .where(eq(exchangeAccounts.iAccount, iAccount));
  if (openingMicros > 0) {
    const opening = { entryId: `exchange-opening:${iAccount}`, type: "exchange_opening_balance", description: "Opening balance" };
    await credit(s, iAccount, { ...opening, amountMicros: openingMicros, createdAt: now }, "balance");
  }
  return { iAccount, username, role: input.role, apiKey, balanceUsd: toUsd(openingMicros) };
}

/** A new API key of `role` for the account; the old one stops working at once. */
export async function rotateApiKey(
  s: ExchangeServices,
  iAccount: number,
  role: ExchangeRole,
): Promise<{ username: string; apiKey: string }> {
  const account = await accountById(s, iAccount);
  if (!account) throw unknown("i_account", "account");
  if (!mayHoldKey(account.role as ExchangeRole, role)) throw invalidInput("role", `a ${account.role} account holds no ${role} key`);
  const apiKey = newApiKey(role);
  const sealed = await encryptSecret(s.config.ENCRYPTION_KEY, apiKey, keyContext(iAccount, role));
  await s.db
    .update(exchangeAccounts)
    .set({
      ...(role === "buyer" ? { buyerKeyEnc: sealed } : { sellerKeyEnc: sealed }),
      ...(await userhashes(account.username, s.config.EXCHANGE_DIGEST_REALM)),
      updatedAt: nowIso(),
    })
    .where(eq(exchangeAccounts.iAccount, iAccount));
  return { username: account.username, apiKey };
}

/** Turns Digest with MD5 on or off for an account. */
export async function setDigestMd5(s: ExchangeServices, iAccount: number, enabled: boolean): Promise<void> {
  const updated = await s.db
    .update(exchangeAccounts)
    .set({ digestMd5: enabled, updatedAt: nowIso() })
    .where(eq(exchangeAccounts.iAccount, iAccount))
    .returning({ iAccount: exchangeAccounts.iAccount });
  if (updated.length === 0) throw unknown("i_account", "account");
}

export async function accountById(s: Pick<ExchangeServices, "db">, iAccount: number): Promise<ExchangeAccount | null> {
  return (await s.db.select().from(exchangeAccounts).where(eq(exchangeAccounts.iAccount, iAccount)).get()) ?? null;
}

export async function accountByUsername(s: Pick<ExchangeServices, "db">, username: string): Promise<ExchangeAccount | null> {
  return (await s.db.select().from(exchangeAccounts).where(eq(exchangeAccounts.username, username)).get()) ?? null;
}

export async function accountByUserhash(
  s: Pick<ExchangeServices, "db">,
  algorithm: "SHA-256" | "MD5",
  userhash: string,
): Promise<ExchangeAccount | null> {
  const column = algorithm === "SHA-256" ? exchangeAccounts.userhashSha256 : exchangeAccounts.userhashMd5;
  return (await s.db.select().from(exchangeAccounts).where(eq(column, userhash.toLowerCase())).get()) ?? null;
}

const decoys = new Map<string, Promise<ExchangeAccount>>();

/**
 * A stand-in account that no request can match (its keys are random and never leave the isolate),
 * checked when a username is unknown so that a miss costs what a wrong key does: one key
 * decrypted, one answer computed. Timing then tells no username apart.
 */
export function decoyAccount(s: Pick<ExchangeServices, "config">): Promise<ExchangeAccount> {
  const cacheKey = s.config.ENCRYPTION_KEY;
  let decoy = decoys.get(cacheKey);
  if (!decoy) {
    decoy = (async () => {
      const seal = (role: ExchangeRole) => encryptSecret(s.config.ENCRYPTION_KEY, newApiKey(role), keyContext(0, role));
      const now = nowIso();
      return {
        iAccount: 0,
        username: "decoy",
        role: "seller",
        buyerKeyEnc: await seal("buyer"),
        sellerKeyEnc: await seal("seller"),
        status: "active",
        hourlyQuota: null,
        perSecondCap: null,
        userhashSha256: null,
        userhashMd5: null,
        digestMd5: true,
        createdAt: now,
        updatedAt: now,
      };
    })();
    decoys.set(cacheKey, decoy);
  }
  return decoy;
}

/** The account's API key of `role`, decrypted; null when it holds none (or it does not decrypt). */
export async function apiKeyOf(s: Pick<ExchangeServices, "config">, account: ExchangeAccount, role: ExchangeRole): Promise<string | null> {
  const sealed = role === "buyer" ? account.buyerKeyEnc : account.sellerKeyEnc;
  if (!sealed) return null;
  return decryptSecret(s.config.ENCRYPTION_KEY, sealed, keyContext(account.iAccount, role));
}

const encoder = new TextEncoder();

/**
 * Which of the account's keys a request proves: the role of the first key the endpoint takes
 * (buyer endpoints the buyer key, seller endpoints the seller key; "any" the buyer key, then the
 * seller key) that the account holds and for which `expected(key)` is `presented` (lower-case
 * hex, compared in constant time); null when none is.
 */
export async function provenKeyRole(
  s: Pick<ExchangeServices, "config">,
  account: ExchangeAccount,
  endpointRole: ExchangeRole | "any",
  presented: string,
  expected: (key: string) => Promise<string>,
): Promise<ExchangeRole | null> {
  const roles: ExchangeRole[] = endpointRole === "any" ? ["buyer", "seller"] : [endpointRole];
  for (const role of roles) {
    if (!mayHoldKey(account.role as ExchangeRole, role)) continue;
    const key = await apiKeyOf(s, account, role);
    if (!key) continue;
    if (timingSafeEqual(encoder.encode(await expected(key)), encoder.encode(presented.toLowerCase()))) return role;
  }
  return null;
}

/** The caller an authenticated request is from (c.var.exchange): the account and the role of the key it proved. */
export const principalOf = (account: ExchangeAccount, role: ExchangeRole): ExchangePrincipal => ({
  iAccount: account.iAccount,
  username: account.username,
  role,
  accountRole: account.role as ExchangeRole,
});

/** Adds money to an account (operator top-up); idempotent by entry id. */
export async function creditAccount(
  s: ExchangeServices,
  iAccount: number,
  amountUsd: string | number,
  entryId: string,
  description: string | null,
): Promise<number> {
  if (!(await accountById(s, iAccount))) throw unknown("i_account", "account");
  const micros = usdToMicros("amount", amountUsd);
  if (micros <= 0) throw invalidInput("amount", "must be more than 0");
  return credit(s, iAccount, { entryId, type: "exchange_credit", amountMicros: micros, description, createdAt: nowIso() }, "amount");
}

/**
 * The `i_account` a request names must be the authenticated account's own (purchases charge
 * the account named by i_account): another account answers 404, as every record of another tenant does.
 */
export function requireOwnAccount(principal: ExchangePrincipal, iAccount: number, field = "i_account"): void {
  if (iAccount !== principal.iAccount) throw unknown(field, "account");
}
