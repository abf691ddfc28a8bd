// Members of an account: invited with a temporary password that must be changed at first
// sign-in; the owner can deactivate them (never the owner) or send a new temporary password.
import { asc, count, eq } from "drizzle-orm";
import { users } from "../../../schema/identity.ts";
import { randomToken } from "../../lib/crypto.ts";
import { isUniqueViolation } from "../../lib/db.ts";
import { newId } from "../../lib/ids.ts";
import { hashPassword } from "../../lib/passwords.ts";
import { nowIso } from "../../lib/time.ts";
import type { MailResult } from "../../providers/mail/mail.ts";
import { MAX_USERS } from "../../resources/users.ts";
import { emailTaken, normalizeEmail } from "../identity/auth.ts";
import type { Services } from "../context.ts";
import { Conflict, Refused } from "../errors.ts";
import { ownedRow } from "../owned.ts";
import type { Principal, UserRow } from "../identity/principal.ts";
import { revokeUsersTokens } from "../identity/refresh-tokens.ts";

export const userOut = (row: UserRow) => ({
  id: row.id,
  email: row.email,
  name: row.name,
  role: row.role,
  is_active: row.isActive,
  must_change_password: row.mustChangePassword,
  last_login_at: row.lastLoginAt,
  last_login_ip: row.lastLoginIp,
  created_at: row.createdAt,
});

export async function listUsers({ db }: Services, principal: Principal) {
  const rows = await db.select().from(users).where(eq(users.customerId, principal.customer.id)).orderBy(asc(users.createdAt));
  return { items: rows.map(userOut), max_users: MAX_USERS };
}

const userOfAccount = (s: Services, principal: Principal, userId: string) => ownedRow(s.db, users, principal.customer.id, userId, "User");

const temporaryPassword = () => randomToken(12);

/** How long an invitation's temporary password stays good (it is also good for one sign-in only). */
export const TEMPORARY_PASSWORD_TTL_HOURS = 72;
const temporaryPasswordExpiry = () => new Date(Date.now() + TEMPORARY_PASSWORD_TTL_HOURS * 3_600_000).toISOString();

function welcomeText(principal: Principal, email: string, password: string): string {
  const company = principal.customer.company ?? principal.customer.email;
  return [
    `You have been invited to the call-screening account of ${company}.`,
    "",
    `Sign in as ${email} with the temporary password ${password}`,
    `It is good for one sign-in within ${TEMPORARY_PASSWORD_TTL_HOURS} hours, where you choose your own password.`,
  ].join("\n");
}

async function sendWelcome(s: Services, principal: Principal, email: string, password: string): Promise<MailResult> {
  return s.mail.send({ to: [email], subject: "Your call-screening account", text: welcomeText(principal, email, password) });
}

export async function inviteUser(s: Services, principal: Principal, input: { email: string; name?: string | null }) {
  const { db, config } = s;
  const email = normalizeEmail(input.email);
  // Capacity first: a full account must not be able to probe which e-mails are registered.
  const existing = await db.select({ n: count() }).from(users).where(eq(users.customerId, principal.customer.id)).get();
  if ((existing?.n ?? 0) >= MAX_USERS) throw new Conflict("Maximum number of users reached");
  if (await emailTaken(db, email)) throw new Conflict("Email already registered");
  const password = temporaryPassword();
  const row: UserRow = {
    id: newId(),
    customerId: principal.customer.id,
    email,
    name: input.name ?? null,
    role: "member",
    passwordHash: await hashPassword(password, config.PASSWORD_PBKDF2_ITERATIONS),
    isActive: true,
    mustChangePassword: true,
    temporaryPasswordExpiresAt: temporaryPasswordExpiry(),
    temporaryPasswordUsedAt: null,
    isPlatformAdmin: false,
    lastLoginAt: null,
    lastLoginIp: null,
    sessionsRevokedAt: null,
    createdAt: nowIso(),
  };
  try {
    await db.insert(users).values(row);
  } catch (err) {
    if (isUniqueViolation(err)) throw new Conflict("Email already registered");
    throw err;
  }
  return { user: userOut(row), welcome_email: await sendWelcome(s, principal, email, password) };
}

export async function updateUser(
  s: Services,
  principal: Principal,
  userId: string,
  input: { name?: string | null; is_active?: boolean | null },
) {
  const { db } = s;
  const row = await userOfAccount(s, principal, userId);
  if (input.is_active === false && row.role === "owner") throw new Refused("cannot_deactivate_owner");
  const patch: Partial<UserRow> = {};
  if (input.name !== undefined) patch.name = input.name;
  if (input.is_active !== undefined && input.is_active !== null) patch.isActive = input.is_active;
  if (Object.keys(patch).length > 0) await db.update(users).set(patch).where(eq(users.id, row.id));
  // A deactivated member's browsers lose their refresh tokens; tokens and keys fail at once.
  if (patch.isActive === false) await revokeUsersTokens(db, [row.id]);
  return userOut({ ...row, ...patch });
}

/** A new temporary password; the old one stops working and the member's sessions end. */
export async function resendInvite(s: Services, principal: Principal, userId: string) {
  const { db, config } = s;
  const row = await userOfAccount(s, principal, userId);
  if (row.role === "owner") throw new Refused("cannot_reset_owner");
  const password = temporaryPassword();
  const patch = {
    passwordHash: await hashPassword(password, config.PASSWORD_PBKDF2_ITERATIONS),
    mustChangePassword: true,
    temporaryPasswordExpiresAt: temporaryPasswordExpiry(),
    temporaryPasswordUsedAt: null,
    sessionsRevokedAt: nowIso(),
  };
  await db.update(users).set(patch).where(eq(users.id, row.id));
  await revokeUsersTokens(db, [row.id]);
  return { user: userOut({ ...row, ...patch }), welcome_email: await sendWelcome(s, principal, row.email, password) };
}
