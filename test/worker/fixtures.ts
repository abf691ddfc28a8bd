// The test fixture factory: accounts, sign-ins and records made the way a customer makes
// them, through the API, so tests read like the spec.
import { expect } from "vitest";
import { as, request } from "./client.ts";

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
