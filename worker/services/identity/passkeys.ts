// Passkeys (WebAuthn, @simplewebauthn/server): owner self-service registration, the
// second factor at sign-in, and enrolment of a member who has none yet.
import {
  generateAuthenticationOptions,
  generateRegistrationOptions,
  verifyAuthenticationResponse,
  verifyRegistrationResponse,
  type AuthenticationResponseJSON,
  type RegistrationResponseJSON,
} from "@simplewebauthn/server";
import { and, asc, count, eq, lt } from "drizzle-orm";
import { customers, passkeys, users } from "../../../schema/identity.ts";
import { base64url, fromBase64url, randomToken } from "../../lib/crypto.ts";
import { isUniqueViolation, type Db } from "../../lib/db.ts";
import { newId } from "../../lib/ids.ts";
import { nowIso } from "../../lib/time.ts";
import { signStepToken, verifyStepToken } from "../../lib/tokens.ts";
import type { Passkey } from "../../resources/passkeys.ts";
import type { Services } from "../context.ts";
import { Conflict, NotFound, Refused, Unauthenticated } from "../errors.ts";
import type { Principal, UserRow } from "./principal.ts";
import { relyingParty } from "./relying-party.ts";
import { spend } from "./spent-tokens.ts";

const STEP_TTL_SEC = 300;
const REGISTER = "passkey-register";
const LOGIN = "passkey-login";
const ENROLL = "passkey-enroll";

type PasskeyRow = typeof passkeys.$inferSelect;

const passkeyOut = (row: PasskeyRow): Passkey => ({
  id: row.id,
  name: row.name,
  transports: row.transports,
  created_at: row.createdAt,
  last_used_at: row.lastUsedAt,
});

const passkeysOf = (db: Db, userId: string) =>
  db.select().from(passkeys).where(eq(passkeys.userId, userId)).orderBy(asc(passkeys.createdAt));

export async function listPasskeys({ db }: Services, principal: Principal): Promise<Passkey[]> {
  return (await passkeysOf(db, principal.user.id)).map(passkeyOut);
}

async function registrationOptions(s: Services, user: UserRow) {
  const existing = await passkeysOf(s.db, user.id);
  return generateRegistrationOptions({
    rpName: relyingParty(s).name,
    rpID: relyingParty(s).id,
    userName: user.email,
    userDisplayName: user.name ?? user.email,
    userID: new Uint8Array(new TextEncoder().encode(user.id)),
    challenge: randomToken(32),
    attestationType: "none",
    excludeCredentials: existing.map((p) => ({ id: p.credentialId, transports: (p.transports ?? []) as never })),
    authenticatorSelection: { residentKey: "preferred", userVerification: "preferred" },
  });
}

export async function beginRegistration(s: Services, principal: Principal) {
  const options = await registrationOptions(s, principal.user);
  const state = await signStepToken(
    REGISTER,
    { sub: principal.user.id, cid: principal.customer.id, challenge: options.challenge },
    s.config.JWT_SECRET,
    STEP_TTL_SEC,
  );
  return { options: options as unknown as Record<string, unknown>, state };
}

/** Verifies a new credential against a step token's challenge and stores it for the user. */
async function storeCredential(
  s: Services,
  user: UserRow,
  challenge: string,
  credential: unknown,
  name: string | null | undefined,
): Promise<PasskeyRow | null> {
  const verified = await verifyRegistrationResponse({
    response: credential as RegistrationResponseJSON,
    expectedChallenge: challenge,
    expectedOrigin: relyingParty(s).origin,
    expectedRPID: relyingParty(s).id,
    requireUserVerification: false,
  }).catch(() => null);
  if (!verified?.verified || !verified.registrationInfo) return null;
  const { credential: cred } = verified.registrationInfo;
  const row: PasskeyRow = {
    id: newId(),
    customerId: user.customerId,
    userId: user.id,
    credentialId: cred.id,
    publicKey: base64url(cred.publicKey),
    signCount: cred.counter,
    transports: (cred.transports as string[] | undefined) ?? null,
    name: name?.trim() || "Passkey",
    createdAt: nowIso(),
    lastUsedAt: null,
  };
  try {
    await s.db.insert(passkeys).values(row);
  } catch (err) {
    if (isUniqueViolation(err)) throw new Conflict("passkey_already_registered");
    throw err;
  }
  return row;
}

export async function completeRegistration(
  s: Services,
  principal: Principal,
  input: { credential: unknown; state: string; name?: string | null },
): Promise<Passkey> {
  const step = await verifyStepToken(REGISTER, input.state, s.config.JWT_SECRET);
  if (!step || step.sub !== principal.user.id || !(await spend(s.db, step.jti, step.exp))) throw new Refused("Bad request");
  const row = await storeCredential(s, principal.user, step.challenge, input.credential, input.name);
  if (!row) throw new Refused("Bad request");
  await s.db.update(customers).set({ twofaEnabled: true, updatedAt: nowIso() }).where(eq(customers.id, principal.customer.id));
  return passkeyOut(row);
}

/** A passkey belongs to one user: another user's (even on the same account) is not found. */
async function ownPasskey(db: Db, principal: Principal, passkeyId: string): Promise<PasskeyRow> {
  const row = await db
    .select()
    .from(passkeys)
    .where(and(eq(passkeys.id, passkeyId), eq(passkeys.userId, principal.user.id)))
    .get();
  if (!row) throw new NotFound("Passkey not found");
  return row;
}

export async function renamePasskey({ db }: Services, principal: Principal, passkeyId: string, name: string): Promise<Passkey> {
  const row = await ownPasskey(db, principal, passkeyId);
  await db.update(passkeys).set({ name: name.trim() }).where(eq(passkeys.id, row.id));
  return passkeyOut({ ...row, name: name.trim() });
}

/** Deleting the owner's last passkey turns two-factor sign-in off for the account. */
export async function deletePasskey({ db }: Services, principal: Principal, passkeyId: string): Promise<void> {
  const row = await ownPasskey(db, principal, passkeyId);
  await db.delete(passkeys).where(eq(passkeys.id, row.id));
  const left = await db.select({ n: count() }).from(passkeys).where(eq(passkeys.userId, principal.user.id)).get();
  if ((left?.n ?? 0) === 0) {
    await db.update(customers).set({ twofaEnabled: false, updatedAt: nowIso() }).where(eq(customers.id, principal.customer.id));
  }
}

/** Idempotent; two-factor stays on, and the member enrols a new passkey at the next sign-in. */
export async function removeMemberPasskeys({ db }: Services, principal: Principal, userId: string): Promise<void> {
  const member = await db
    .select({ id: users.id, role: users.role })
    .from(users)
    .where(and(eq(users.id, userId), eq(users.customerId, principal.customer.id)))
    .get();
  if (!member || member.role === "owner") throw new NotFound("User not found");
  await db.delete(passkeys).where(eq(passkeys.userId, member.id));
}

export type SecondFactor =
  | { twofa_required: true; login_token: string; passkey_options: Record<string, unknown> }
  | { twofa_required: true; enroll_token: string; passkey_options: Record<string, unknown> };

/** The password was right and the account wants a passkey too: a challenge, or an enrolment. */
export async function secondFactorChallenge(s: Services, principal: Principal): Promise<SecondFactor> {
  const own = await passkeysOf(s.db, principal.user.id);
  const claims = { sub: principal.user.id, cid: principal.customer.id };
  if (own.length === 0) {
    const options = await registrationOptions(s, principal.user);
    const enroll_token = await signStepToken(ENROLL, { ...claims, challenge: options.challenge }, s.config.JWT_SECRET, STEP_TTL_SEC);
    return { twofa_required: true, enroll_token, passkey_options: options as unknown as Record<string, unknown> };
  }
  const options = await generateAuthenticationOptions({
    rpID: relyingParty(s).id,
    challenge: randomToken(32),
    userVerification: "preferred",
    allowCredentials: own.map((p) => ({ id: p.credentialId, transports: (p.transports ?? []) as never })),
  });
  const login_token = await signStepToken(LOGIN, { ...claims, challenge: options.challenge }, s.config.JWT_SECRET, STEP_TTL_SEC);
  return { twofa_required: true, login_token, passkey_options: options as unknown as Record<string, unknown> };
}

const invalidLogin = () => new Unauthenticated("invalid_login");

/** Checks the assertion against login_token's single-use challenge; the sign count only rises. */
export async function verifyPasskeyLogin(s: Services, input: { login_token: string; assertion: unknown }): Promise<string> {
  const step = await verifyStepToken(LOGIN, input.login_token, s.config.JWT_SECRET);
  if (!step) throw invalidLogin();
  const assertion = input.assertion as AuthenticationResponseJSON;
  const row = await s.db
    .select()
    .from(passkeys)
    .where(and(eq(passkeys.credentialId, String(assertion.id)), eq(passkeys.userId, step.sub)))
    .get();
  if (!row) throw invalidLogin();
  const verified = await verifyAuthenticationResponse({
    response: assertion,
    expectedChallenge: step.challenge,
    expectedOrigin: relyingParty(s).origin,
    expectedRPID: relyingParty(s).id,
    credential: { id: row.credentialId, publicKey: fromBase64url(row.publicKey), counter: row.signCount },
    requireUserVerification: false,
  }).catch(() => null);
  if (!verified?.verified) throw invalidLogin();
  if (!(await spend(s.db, step.jti, step.exp))) throw invalidLogin();
  const newCount = verified.authenticationInfo.newCounter;
  // Conditional on the stored count, so two racing assertions cannot both raise it.
  const raised = await s.db
    .update(passkeys)
    .set({ signCount: newCount, lastUsedAt: nowIso() })
    .where(and(eq(passkeys.id, row.id), newCount === 0 ? eq(passkeys.signCount, 0) : lt(passkeys.signCount, newCount)))
    .returning({ id: passkeys.id });
  if (raised.length === 0) throw invalidLogin();
  return step.sub;
}

/** Stores the member's first passkey (two-factor accounts only) and names the user to sign in. */
export async function enrollPasskey(
  s: Services,
  input: { enroll_token: string; credential: unknown; name?: string | null },
): Promise<string> {
  const step = await verifyStepToken(ENROLL, input.enroll_token, s.config.JWT_SECRET);
  if (!step) throw invalidLogin();
  const user = await s.db.select().from(users).where(eq(users.id, step.sub)).get();
  if (!user || !user.isActive) throw invalidLogin();
  if (!(await spend(s.db, step.jti, step.exp))) throw invalidLogin();
  const row = await storeCredential(s, user, step.challenge, input.credential, input.name);
  if (!row) throw invalidLogin();
  return user.id;
}
