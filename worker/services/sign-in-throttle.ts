// Sign-in and signup throttling (spec rule 3). Per source IP every attempt counts. Per
// e-mail only wrong passwords count, and the owner's successful sign-in clears them.
import type { LimitVerdict } from "../../durable-objects/limiter.ts";
import type { Services } from "./context.ts";
import { TooManyRequests } from "./errors.ts";

const TOO_MANY = "too_many_attempts";

const ipKey = (ip: string) => `login-ip:${ip}`;
const emailKey = (email: string) => `login-email:${email}`;

function enforce(verdict: LimitVerdict): void {
  if (!verdict.allowed) throw new TooManyRequests(TOO_MANY, verdict.retryAfterSec);
}

export async function admitLoginAttempt(s: Services, ip: string, email: string): Promise<void> {
  const window = s.config.LOGIN_FAILURE_WINDOW_SEC;
  enforce(await s.limiter(ipKey(ip)).hit(s.config.LOGIN_IP_MAX_ATTEMPTS, window));
  enforce(await s.limiter(emailKey(email)).check(s.config.LOGIN_MAX_FAILURES, window));
}

export async function countWrongPassword(s: Services, email: string): Promise<void> {
  await s.limiter(emailKey(email)).hit(s.config.LOGIN_MAX_FAILURES, s.config.LOGIN_FAILURE_WINDOW_SEC);
}

export async function clearWrongPasswords(s: Services, email: string): Promise<void> {
  await s.limiter(emailKey(email)).reset();
}

export async function admitSignup(s: Services, ip: string): Promise<void> {
  enforce(await s.limiter(`signup-ip:${ip}`).hit(s.config.SIGNUP_MAX_PER_IP, s.config.SIGNUP_WINDOW_SEC));
}
