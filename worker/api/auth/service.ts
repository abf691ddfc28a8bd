// Signing up, signing in and signing out. Each verb checks, does its work, and raises ApiError.
import { and, eq } from "drizzle-orm";
import { customers, users } from "../../../schema/identity.ts";
import type { Bindings, Config } from "../../env.ts";
import { isUniqueViolation, type Db } from "../../lib/db.ts";
import { ApiError, conflict, forbidden, invalidField, unauthorized } from "../../lib/errors.ts";
import { newId } from "../../lib/ids.ts";
import { ledgerFor } from "../../lib/ledger.ts";
import { toMicros } from "../../lib/money.ts";
import { DUMMY_HASH, hashPassword, needsRehash, verifyPassword } from "../../lib/passwords.ts";
import { addDays, nowIso } from "../../lib/time.ts";
import { signAccessToken } from "../../lib/tokens.ts";
import type { Principal } from "./principal.ts";
import { revokeAccountTokens, revokeUsersTokens } from "./refresh-tokens.ts";
import type { LoginRequest, SignupRequest } from "./schemas.ts";
import { clearWrongPasswords, countWrongPassword } from "./throttle.ts";

export const DEFAULT_PLAN = "payg";
export const PILOT_DAYS = 14;
export const PILOT_MINUTES = 300;

type Deps = { env: Bindings; db: Db; config: Config };

export const normalizeEmail = (email: string) => email.trim().toLowerCase();

export async function emailTaken(db: Db, email: string): Promise<boolean> {
  return (await db.select({ id: users.id }).from(users).where(eq(users.email, normalizeEmail(email))).get()) !== undefined;
}

export async function signup({ env, db, config }: Deps, input: SignupRequest): Promise<Principal> {
  if (!config.SIGNUP_ENABLED) throw forbidden("Signup is disabled");
  const email = normalizeEmail(input.email);
  if (await emailTaken(db, email)) throw conflict("Email already registered");
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
    if (isUniqueViolation(err)) throw conflict("Email already registered");
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
  return loadPrincipal(db, user.id!);
}

/**
 * Checks a password sign-in. An unknown e-mail and a wrong password answer alike and cost
 * alike, and both count against the e-mail's throttle; a right password clears it.
 */
export async function checkPassword({ env, db, config }: Deps, input: LoginRequest): Promise<Principal> {
  const email = normalizeEmail(input.email);
  const found = await db
    .select({ user: users, customer: customers })
    .from(users)
    .innerJoin(customers, eq(customers.id, users.customerId))
    .where(eq(users.email, email))
    .get();
  const valid = await verifyPassword(input.password, found?.user.passwordHash ?? DUMMY_HASH);
  if (!found || !valid) {
    await countWrongPassword(env, config, email);
    throw unauthorized("Invalid email or password");
  }
  await clearWrongPasswords(env, email);
  if (!found.user.isActive) throw unauthorized("Invalid email or password");
  if (found.customer.status === "suspended") throw forbidden("Account suspended");
  if (needsRehash(found.user.passwordHash, config.PASSWORD_PBKDF2_ITERATIONS)) {
    const passwordHash = await hashPassword(input.password, config.PASSWORD_PBKDF2_ITERATIONS);
    await db.update(users).set({ passwordHash }).where(eq(users.id, found.user.id));
  }
  return { ...found, via: "token", impersonatedBy: null };
}

export async function recordLogin(db: Db, principal: Principal, ip: string | null): Promise<void> {
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

export async function loadPrincipal(db: Db, userId: string, impersonatedBy: string | null = null): Promise<Principal> {
  const row = await db
    .select({ user: users, customer: customers })
    .from(users)
    .innerJoin(customers, eq(customers.id, users.customerId))
    .where(eq(users.id, userId))
    .get();
  if (!row || !row.user.isActive) throw unauthorized();
  return { ...row, via: "token", impersonatedBy };
}

/**
 * Spec rule 6: a member signs out only themselves; an owner signs out every user of the
 * account. Access tokens issued before now are refused; API keys are unaffected.
 */
export async function logoutAll(db: Db, principal: Principal): Promise<void> {
  const now = nowIso();
  if (principal.user.role === "owner") {
    await db.update(customers).set({ sessionsRevokedAt: now, updatedAt: now }).where(eq(customers.id, principal.customer.id));
    await revokeAccountTokens(db, principal.customer.id);
  } else {
    await db.update(users).set({ sessionsRevokedAt: now }).where(eq(users.id, principal.user.id));
    await revokeUsersTokens(db, [principal.user.id]);
  }
}

/** Spec rule 7: also clears must_change_password and revokes every other session of the user. */
export async function changePassword(
  { db, config }: Deps,
  principal: Principal,
  input: { current_password: string; new_password: string },
  currentFamilyId: string | null,
): Promise<void> {
  if (!(await verifyPassword(input.current_password, principal.user.passwordHash))) {
    throw new ApiError(400, "invalid_current_password");
  }
  if (input.new_password === input.current_password) {
    throw invalidField(["body", "new_password"], "new_password must differ from the current password");
  }
  const now = nowIso();
  await db
    .update(users)
    .set({
      passwordHash: await hashPassword(input.new_password, config.PASSWORD_PBKDF2_ITERATIONS),
      mustChangePassword: false,
      sessionsRevokedAt: now,
    })
    .where(and(eq(users.id, principal.user.id), eq(users.customerId, principal.customer.id)));
  await revokeUsersTokens(db, [principal.user.id], currentFamilyId);
}
