// The test fixture factory: accounts, sign-ins and records made the way a customer makes
// them, through the API, so tests read like the spec.
import { env } from "cloudflare:test";
import { expect, vi } from "vitest";
import { loadConfig } from "../../worker/env.ts";
import { newServices, type Services } from "../../worker/services/context.ts";
import { fromAccessToken, type Principal } from "../../worker/services/principal.ts";
import { verdictSinkFor } from "../../worker/services/verdict-listeners.ts";
import { as, request, type Reply } from "./client.ts";

let counter = 0;

/** A unique e-mail per call, so tests never share an account by accident. */
export const uniqueEmail = (label = "user") => `${label}-${Date.now().toString(36)}-${++counter}@carrier.test`;

/** A password that passes the policy; random so no fixture holds a real secret. */
export const newPassword = () => `pw-${crypto.randomUUID()}`;

export type Session = {
  email: string;
  password: string;
  token: string;
  account: any;
  client: ReturnType<typeof as>;
};

/** Opens an account through POST /api/auth/signup and returns its owner's session. */
export async function createAccount(overrides: Record<string, unknown> = {}): Promise<Session> {
  const email = uniqueEmail("owner");
  const password = newPassword();
  const res = await request("POST", "/api/auth/signup", {
    body: { email, password, company: "Test Carrier", accept_terms: true, ...overrides },
  });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  const token = res.body.access_token as string;
  return {
    email: (overrides.email as string) ?? email,
    password: (overrides.password as string) ?? password,
    token,
    account: res.body.customer,
    client: as({ token }),
  };
}

/** Signs in with e-mail and password; returns the access token. */
export async function signIn(email: string, password: string): Promise<string> {
  const res = await request("POST", "/api/auth/login", { body: { email, password } });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body.access_token as string;
}

/** Signs in as a browser (X-Client: web): the access token and the refresh cookie. */
export async function signInBrowser(email: string, password: string): Promise<{ token: string; cookie: string }> {
  const res = await request("POST", "/api/auth/login", { body: { email, password }, headers: { "X-Client": "web" } });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return { token: res.body.access_token, cookie: refreshCookie(res)! };
}

/** The refresh cookie a reply set, as a Cookie header value ("shield_refresh=..."), or null. */
export function refreshCookie(res: Reply): string | null {
  const header = res.headers.get("set-cookie") ?? "";
  const match = /(?:^|,\s*)shield_refresh=([^;]*)/.exec(header);
  return match && match[1] ? `shield_refresh=${match[1]}` : null;
}

/** POST /auth/refresh as the portal sends it. */
export const refresh = (cookie: string, xhr = true) =>
  request("POST", "/api/auth/refresh", {
    headers: { Cookie: cookie, ...(xhr ? { "X-Requested-With": "XMLHttpRequest" } : {}) },
  });

/** An invited member who has chosen their own password and is signed in. */
export async function addMember(owner: Session, name = "Member"): Promise<Session & { userId: string }> {
  const email = uniqueEmail("member");
  const invite = await owner.client.post("/api/customer/users", { email, name });
  expect(invite.status, JSON.stringify(invite.body)).toBe(201);
  const temporary = temporaryPasswordFor(await latestMailTo(email));
  const first = await signIn(email, temporary);
  const password = newPassword();
  const changed = await as({ token: first }).post("/api/auth/change-password", {
    current_password: temporary,
    new_password: password,
  });
  expect(changed.status).toBe(204);
  const token = await signIn(email, password);
  return { email, password, token, account: owner.account, client: as({ token }), userId: invite.body.user.id };
}

/** The newest message the embedded mail adapter kept for an address. */
export async function latestMailTo(email: string): Promise<string> {
  const row = await env.DB.prepare("SELECT text FROM outbox_emails WHERE to_address = ? ORDER BY created_at DESC, rowid DESC LIMIT 1")
    .bind(email)
    .first<{ text: string }>();
  expect(row, `no mail to ${email}`).not.toBeNull();
  return row!.text;
}

export const temporaryPasswordFor = (mail: string) => /temporary password (\S+)/.exec(mail)![1]!;

/** Makes the account a platform administrator (production does this with `wrangler d1 execute`). */
export async function makePlatformAdmin(session: Session): Promise<void> {
  await env.DB.prepare("UPDATE customers SET role = 'admin' WHERE id = ?").bind(session.account.id).run();
}

/**
 * Moves the clock into the next second, so "issued before now" at one-second resolution is
 * unambiguous, without waiting for it: Date is faked (and keeps moving), timers stay real.
 * setup.ts gives every test the real clock back.
 */
export function nextSecond(): void {
  const now = Date.now();
  vi.useFakeTimers({ toFake: ["Date"], shouldAdvanceTime: true });
  vi.setSystemTime(now - (now % 1000) + 1020);
}

/** The domain layer as a front door builds it, for tests that call service verbs directly. */
export function testServices(overrides: Partial<Services> = {}): Services {
  const services: Services = { ...newServices(env, loadConfig(env), { origin: "https://shield.test" }), ...overrides };
  // The verdict listeners act through the services they are given: these, with the test's edges.
  if (!overrides.verdicts) services.verdicts = verdictSinkFor(services);
  return services;
}

/** The principal of a session's owner, as the access middleware would resolve it. */
export async function principalOf(session: Session): Promise<Principal> {
  const principal = await fromAccessToken(testServices().db, session.token, loadConfig(env).JWT_SECRET);
  if (!principal) throw new Error("the session's token does not resolve");
  return principal;
}
