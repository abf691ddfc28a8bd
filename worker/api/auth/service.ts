// Signing up and signing in. Each verb checks, does its work, and raises ApiError.
import { eq } from "drizzle-orm";
import { customers, users } from "../../../schema/identity.ts";
import type { Bindings, Config } from "../../env.ts";
import type { Db } from "../../lib/db.ts";
import { conflict, forbidden, unauthorized } from "../../lib/errors.ts";
import { newId } from "../../lib/ids.ts";
import { ledgerFor } from "../../lib/ledger.ts";
import { toMicros } from "../../lib/money.ts";
import { DUMMY_HASH, hashPassword, verifyPassword } from "../../lib/passwords.ts";
import { addDays, nowIso } from "../../lib/time.ts";
import { signAccessToken } from "../../lib/tokens.ts";
import type { Principal } from "./principal.ts";
import type { LoginRequest, SignupRequest } from "./schemas.ts";

export const DEFAULT_PLAN = "payg";
export const PILOT_DAYS = 14;
export const PILOT_MINUTES = 300;

type Deps = { env: Bindings; db: Db; config: Config };

export const normalizeEmail = (email: string) => email.trim().toLowerCase();

export async function signup({ env, db, config }: Deps, input: SignupRequest): Promise<Principal> {
  if (!config.SIGNUP_ENABLED) throw forbidden("Signup is disabled");
  const email = normalizeEmail(input.email);
  if (await db.select({ id: users.id }).from(users).where(eq(users.email, email)).get()) {
    throw conflict("Email already registered");
  }
  const now = nowIso();
  const customer: typeof customers.$inferInsert = {
    id: newId(),
    email,
    company: input.company ?? null,
    planCode: DEFAULT_PLAN,
    pilotStartedAt: now,
    pilotEndsAt: addDays(now, PILOT_DAYS),
    pilotMinutesLimit: PILOT_MINUTES,
    termsVersion: input.accept_terms ? config.TERMS_VERSION : null,
    termsAcceptedAt: input.accept_terms ? now : null,
    attribution: input.attribution ?? null,
    createdAt: now,
    updatedAt: now,
  };
  const user: typeof users.$inferInsert = {
    id: newId(),
    customerId: customer.id,
    email,
    name: input.full_name ?? null,
    role: "owner",
    passwordHash: await hashPassword(input.password, config.PASSWORD_PBKDF2_ITERATIONS),
    createdAt: now,
  };
  try {
    await db.batch([db.insert(customers).values(customer), db.insert(users).values(user)]);
  } catch (err) {
    // Two signups for one e-mail at once: the unique index lets exactly one through.
    if (String(err).includes("UNIQUE")) throw conflict("Email already registered");
    throw err;
  }
  const creditMicros = toMicros(config.SIGNUP_CREDIT_USD);
  if (creditMicros > 0) {
    const credited = await ledgerFor(env, customer.id!).credit({
      entryId: `signup-credit:${customer.id}`,
      type: "credit",
      amountMicros: creditMicros,
      description: "Welcome credit",
      createdAt: now,
    });
    if (!credited.ok) throw new Error(`welcome credit refused: ${credited.reason}`);
  }
  return loadPrincipal(db, user.id);
}

/** Checks a password sign-in. Unknown e-mail and wrong password answer alike and cost alike. */
export async function checkPassword({ db }: Deps, input: LoginRequest): Promise<Principal> {
  const email = normalizeEmail(input.email);
  const found = await db
    .select({ user: users, customer: customers })
    .from(users)
    .innerJoin(customers, eq(customers.id, users.customerId))
    .where(eq(users.email, email))
    .get();
  const valid = await verifyPassword(input.password, found?.user.passwordHash ?? DUMMY_HASH);
  if (!found || !valid || !found.user.isActive) throw unauthorized("Invalid email or password");
  if (found.customer.status === "suspended") throw forbidden("Account suspended");
  return { ...found, via: "token", impersonatedBy: null };
}

export async function recordLogin({ db }: Deps, principal: Principal, ip: string | null): Promise<void> {
  await db.update(users).set({ lastLoginAt: nowIso(), lastLoginIp: ip }).where(eq(users.id, principal.user.id));
}

export async function issueAccessToken(config: Config, principal: Principal) {
  const token = await signAccessToken(
    { sub: principal.user.id, cid: principal.customer.id, imp: principal.impersonatedBy ?? undefined },
    config.JWT_SECRET,
    config.ACCESS_TOKEN_TTL_SEC,
  );
  return { access_token: token, token_type: "bearer" as const, expires_in: config.ACCESS_TOKEN_TTL_SEC };
}

async function loadPrincipal(db: Db, userId: string): Promise<Principal> {
  const row = await db
    .select({ user: users, customer: customers })
    .from(users)
    .innerJoin(customers, eq(customers.id, users.customerId))
    .where(eq(users.id, userId))
    .get();
  if (!row) throw new Error(`user ${userId} vanished after being written`);
  return { ...row, via: "token", impersonatedBy: null };
}
