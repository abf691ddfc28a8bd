// Signing up, signing in and signing out. Each verb checks, does its work, and raises a domain error.
import { and, eq, isNull } from "drizzle-orm";
import { customers, users } from "../../../schema/identity.ts";
import type { Config } from "../../env.ts";
import { isUniqueViolation, type Db } from "../../lib/db.ts";
import { newId } from "../../lib/ids.ts";
import { toMicros } from "../../lib/money.ts";
import { dummyHash, hashPassword, needsRehash, verifyPassword } from "../../lib/passwords.ts";
import { addDays, nowIso } from "../../lib/time.ts";
import { signAccessToken } from "../../lib/tokens.ts";
import type { LoginRequest, SignupRequest } from "../../resources/auth.ts";
import { sessionCustomerOut } from "../accounts/accounts.ts";
import type { Services } from "../context.ts";
import { Conflict, Forbidden, InvalidField, Refused, Unauthenticated } from "../errors.ts";
import { loadPrincipal, type Principal, type UserRow } from "./principal.ts";
import { familyOf, revokeAccountTokens, revokeUsersTokens } from "./refresh-tokens.ts";
import { clearWrongPasswords } from "./sign-in-throttle.ts";

export const DEFAULT_PLAN = "payg";
export const PILOT_DAYS = 14;
export const PILOT_MINUTES = 300;

export const normalizeEmail = (email: string) => email.trim().toLowerCase();

export async function emailTaken(db: Db, email: string): Promise<boolean> {
  return (
    (await db
      .select({ id: users.id })
      .from(users)
      .where(eq(users.email, normalizeEmail(email)))
      .get()) !== undefined
  );
}

export async function signup(s: Services, input: SignupRequest): Promise<Principal> {
  const { db, config } = s;
  if (!config.SIGNUP_ENABLED) throw new Forbidden("Signup is disabled");
  const email = normalizeEmail(input.email);
  if (await emailTaken(db, email)) throw new Conflict("Email already registered");
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
    if (isUniqueViolation(err)) throw new Conflict("Email already registered");
    throw err;
  }
  const creditMicros = toMicros(config.SIGNUP_CREDIT_USD);
  if (creditMicros > 0) {
    const credited = await s.ledger(customer.id!).credit({
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
 * Checks a password sign-in from a source address. An unknown e-mail and a wrong password
 * answer alike and cost alike, and both count against the e-mail's and the address's failures;
 * a right password clears the e-mail's.
 */
export async function checkPassword(s: Services, input: LoginRequest, ip: string): Promise<Principal> {
  const { db, config } = s;
  const email = normalizeEmail(input.email);
  const found = await db
    .select({ user: users, customer: customers })
    .from(users)
    .innerJoin(customers, eq(customers.id, users.customerId))
    .where(eq(users.email, email))
    .get();
  const valid = await verifyPassword(input.password, found?.user.passwordHash ?? dummyHash(config.PASSWORD_PBKDF2_ITERATIONS));
  // A wrong password was counted when the attempt was admitted (admitLoginAttempt).
  if (!found || !valid) throw new Unauthenticated("Invalid email or password");
  await clearWrongPasswords(s, { ip, email });
  if (!found.user.isActive) throw new Unauthenticated("Invalid email or password");
  if (!(await spendTemporaryPassword(s, found.user))) throw new Unauthenticated("Invalid email or password");
  if (found.customer.status === "suspended") throw new Forbidden("Account suspended");
  if (needsRehash(found.user.passwordHash, config.PASSWORD_PBKDF2_ITERATIONS)) {
    const passwordHash = await hashPassword(input.password, config.PASSWORD_PBKDF2_ITERATIONS);
    await db.update(users).set({ passwordHash }).where(eq(users.id, found.user.id));
  }
  return { ...found, via: "token", impersonatedBy: null };
}

/**
 * A temporary password signs in once, before it expires: the mail that carried it stays in the
 * outbox, so what it holds must be worthless once used. One conditional update, so two sign-ins
 * at once cannot both spend it. True for a chosen password.
 */
async function spendTemporaryPassword({ db }: Services, user: UserRow): Promise<boolean> {
  if (!user.mustChangePassword || !user.temporaryPasswordExpiresAt) return true;
  const now = nowIso();
  if (user.temporaryPasswordExpiresAt <= now || user.temporaryPasswordUsedAt) return false;
  const spent = await db
    .update(users)
    .set({ temporaryPasswordUsedAt: now })
    .where(and(eq(users.id, user.id), isNull(users.temporaryPasswordUsedAt)))
    .returning({ id: users.id });
  return spent.length === 1;
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

/** The token response of a session: a fresh access token and who it is for. */
export async function tokenResponse(s: Services, principal: Principal) {
  return { ...(await issueAccessToken(s.config, principal)), customer: sessionCustomerOut(principal) };
}

/**
 * Spec rule 6: a member signs out only themselves; an owner signs out every user of the
 * account. Access tokens issued before now are refused; API keys are unaffected.
 */
export async function logoutAll({ db }: Services, principal: Principal): Promise<void> {
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
  { db, config }: Services,
  principal: Principal,
  input: { current_password: string; new_password: string },
  /** The refresh token of the browser asking, whose session stays. */
  currentRefreshToken: string | null,
): Promise<void> {
  if (!(await verifyPassword(input.current_password, principal.user.passwordHash))) {
    throw new Refused("invalid_current_password");
  }
  if (input.new_password === input.current_password) {
    throw new InvalidField("new_password", "new_password must differ from the current password");
  }
  const now = nowIso();
  await db
    .update(users)
    .set({
      passwordHash: await hashPassword(input.new_password, config.PASSWORD_PBKDF2_ITERATIONS),
      mustChangePassword: false,
      temporaryPasswordExpiresAt: null,
      temporaryPasswordUsedAt: null,
      sessionsRevokedAt: now,
    })
    .where(and(eq(users.id, principal.user.id), eq(users.customerId, principal.customer.id)));
  await revokeUsersTokens(db, [principal.user.id], await familyOf({ db }, currentRefreshToken));
}
