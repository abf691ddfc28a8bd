// The browser session as the specification designs it: the access token only in memory, the
// refresh token in the shield_refresh cookie (HttpOnly, sent only to /api/auth with
// X-Requested-With), renewed a minute before the access token expires, and signed out after the
// idle time /auth/config names. A reload restores the session from the cookie.
import { startAuthentication, startRegistration } from "@simplewebauthn/browser";
import createClient from "openapi-fetch";
import { apiError } from "../api/errors.ts";
import type { paths } from "../api/schema";

/** Sign-in calls: never the session's token; X-Client: web asks for the refresh cookie. */
const authApi = createClient<paths>({ baseUrl: "/api", headers: { "X-Client": "web" } });
const COOKIE_CALL = { headers: { "X-Requested-With": "XMLHttpRequest" } } as const;

/** Renew this long before the access token expires. */
const RENEW_BEFORE_MS = 60_000;

export type SessionState = { status: "loading" | "signed_out" | "signed_in"; token: string | null; reason: string | null };

type TokenAnswer = { access_token: string; expires_in: number };
type Challenge = { twofa_required: true; login_token?: string; enroll_token?: string; passkey_options: Record<string, unknown> };
export type SignInResult = { done: true } | { done: false; challenge: Challenge };

let state: SessionState = { status: "loading", token: null, reason: null };
let expiresAt = 0;
let renewTimer: ReturnType<typeof setTimeout> | undefined;
let renewing: Promise<string | null> | null = null;
const listeners = new Set<() => void>();

function set(next: Partial<SessionState>) {
  state = { ...state, ...next };
  for (const listener of listeners) listener();
}

function adopt(answer: TokenAnswer) {
  expiresAt = Date.now() + answer.expires_in * 1000;
  clearTimeout(renewTimer);
  renewTimer = setTimeout(() => void renew(), Math.max(5_000, answer.expires_in * 1000 - RENEW_BEFORE_MS));
  set({ status: "signed_in", token: answer.access_token, reason: null });
}

function end(reason: string | null) {
  clearTimeout(renewTimer);
  expiresAt = 0;
  set({ status: "signed_out", token: null, reason });
}

/** A new access token from the refresh cookie; null (signed out) when the cookie is gone or revoked. */
function renew(): Promise<string | null> {
  renewing ??= (async () => {
    try {
      const { data, response } = await authApi.POST("/auth/refresh", COOKIE_CALL);
      if (!response.ok || !data) {
        end(state.status === "signed_in" ? "Your session ended. Sign in again." : null);
        return null;
      }
      adopt(data);
      return data.access_token;
    } finally {
      renewing = null;
    }
  })();
  return renewing;
}

export const session = {
  current: () => state,
  subscribe(listener: () => void) {
    listeners.add(listener);
    return () => listeners.delete(listener);
  },

  /** At start: the cookie of an earlier visit (or of another tab) signs this page in. */
  restore: () => renew(),

  /** The access token, renewed first when it is about to expire. */
  async freshToken(): Promise<string | null> {
    if (state.status !== "signed_in") return state.token;
    if (Date.now() > expiresAt - 10_000) return renew();
    return state.token;
  },

  async signIn(email: string, password: string): Promise<SignInResult> {
    const { data, error, response } = await authApi.POST("/auth/login", { body: { email, password } });
    if (!response.ok || !data) throw apiError(response, error);
    if ("twofa_required" in data) return { done: false, challenge: data as Challenge };
    adopt(data as TokenAnswer);
    return { done: true };
  },

  /** The second factor: the browser's passkey answers the login token's challenge. */
  async passkeyStep(challenge: Challenge): Promise<void> {
    if (challenge.login_token) {
      const assertion = await startAuthentication({ optionsJSON: challenge.passkey_options as never });
      const { data, error, response } = await authApi.POST("/auth/login/passkey", {
        body: { login_token: challenge.login_token, assertion: assertion as never },
      });
      if (!response.ok || !data) throw apiError(response, error);
      adopt(data);
      return;
    }
    // A member of a 2FA account without a passkey enrols one now: there is no password-only way in.
    const credential = await startRegistration({ optionsJSON: challenge.passkey_options as never });
    const { data, error, response } = await authApi.POST("/auth/login/passkey/enroll", {
      body: { enroll_token: challenge.enroll_token!, credential: credential as never, name: "This browser" },
    });
    if (!response.ok || !data) throw apiError(response, error);
    adopt(data);
  },

  async signUp(body: { email: string; password: string; company?: string | null; full_name?: string | null; accept_terms: boolean }) {
    const { data, error, response } = await authApi.POST("/auth/signup", { body });
    if (!response.ok || !data) throw apiError(response, error);
    adopt(data);
  },

  /** After a password change every other session is revoked; this browser takes a new token from its cookie. */
  afterPasswordChange: () => renew(),

  async signOut(reason: string | null = null) {
    await authApi.POST("/auth/logout", COOKIE_CALL).catch(() => undefined);
    end(reason);
  },

  async signOutEverywhere() {
    const token = await session.freshToken();
    const { error, response } = await authApi.POST("/auth/logout-all", { headers: { Authorization: `Bearer ${token}` } });
    if (!response.ok) throw apiError(response, error);
    await session.signOut();
  },

  /** The API refused the token: the session is over (revoked elsewhere, or the user deactivated). */
  expired() {
    if (state.status === "signed_in") void renew();
  },
};
