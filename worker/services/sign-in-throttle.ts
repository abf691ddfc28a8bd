// Sign-in and signup throttling (spec rule 3; docs/decisions.md, "Identity"). Per source
// address two counters: failed sign-ins (LOGIN_IP_MAX_FAILURES), so an office behind one NAT
// address is not locked out by its own staff signing in, and every attempt under a far higher
// ceiling (LOGIN_IP_MAX_ATTEMPTS) against floods. Per e-mail only wrong passwords count, and
// the owner's successful sign-in clears them. The address's failures are never cleared by a
// success: one valid account must not reset a spray across others.
import type { LimitVerdict } from "../../durable-objects/limiter.ts";
import type { Services } from "./context.ts";
import { TooManyRequests } from "./errors.ts";

const TOO_MANY = "too_many_attempts";

const ipAttemptsKey = (ip: string) => `login-ip:${ip}`;
const ipFailuresKey = (ip: string) => `login-ip-failures:${ip}`;
const emailKey = (email: string) => `login-email:${email}`;

function enforce(verdict: LimitVerdict): void {
  if (!verdict.allowed) throw new TooManyRequests(TOO_MANY, verdict.retryAfterSec);
}

/** Who is signing in: the source address (CF-Connecting-IP) and the normalised e-mail. */
export type SignInSource = { ip: string; email: string };

/** Counts the attempt against the address's ceiling and refuses it when any limit is reached. */
export async function admitLoginAttempt(s: Services, source: SignInSource): Promise<void> {
  const { config } = s;
  const window = config.LOGIN_FAILURE_WINDOW_SEC;
  const [attempts, ipFailures, emailFailures] = await Promise.all([
    s.limiter(ipAttemptsKey(source.ip)).hit(config.LOGIN_IP_MAX_ATTEMPTS, window),
    s.limiter(ipFailuresKey(source.ip)).check(config.LOGIN_IP_MAX_FAILURES, window),
    s.limiter(emailKey(source.email)).check(config.LOGIN_MAX_FAILURES, window),
  ]);
  enforce(attempts);
  enforce(ipFailures);
  enforce(emailFailures);
}

/** A wrong password (or an unknown e-mail): counted against the e-mail and the address. */
export async function countWrongPassword(s: Services, source: SignInSource): Promise<void> {
  const window = s.config.LOGIN_FAILURE_WINDOW_SEC;
  await Promise.all([
    s.limiter(emailKey(source.email)).hit(s.config.LOGIN_MAX_FAILURES, window),
    s.limiter(ipFailuresKey(source.ip)).hit(s.config.LOGIN_IP_MAX_FAILURES, window),
  ]);
}

/** The right password: the e-mail's failures are forgotten (the address's are not). */
export async function clearWrongPasswords(s: Services, source: SignInSource): Promise<void> {
  await s.limiter(emailKey(source.email)).reset();
}

export async function admitSignup(s: Services, ip: string): Promise<void> {
  enforce(await s.limiter(`signup-ip:${ip}`).hit(s.config.SIGNUP_MAX_PER_IP, s.config.SIGNUP_WINDOW_SEC));
}
