// Sign-in and signup throttling (spec rule 3; docs/decisions/accounts-and-identity.md#sign-in-and-signup-throttling). Per source
// address two counters: failed sign-ins (LOGIN_IP_MAX_FAILURES), so an office behind one NAT
// address is not locked out by its own staff signing in, and every attempt under a far higher
// ceiling (LOGIN_IP_MAX_ATTEMPTS) against floods. Per e-mail only wrong passwords count, and
// the owner's successful sign-in clears them. The address's failures are never cleared by a
// success: one valid account must not reset a spray across others.
//
// Failures are counted before the password is checked (a right password then takes its count
// back): a check-then-count let a parallel burst all pass the check. IPv6 sources are counted per
// /64, the block one subscriber gets, so rotating addresses inside it does not reset the limits.
import type { LimitVerdict } from "../../../durable-objects/limiter.ts";
import { ipToHex } from "../../../schema/cidr.ts";
import type { Services } from "../context.ts";
import { TooManyRequests } from "../errors.ts";

const TOO_MANY = "too_many_attempts";

/** The address a limit is kept for: an IPv4 address as is, an IPv6 address's /64. */
export function sourceKey(ip: string): string {
  const hex = ipToHex(ip);
  if (!hex || hex.startsWith("00000000000000000000ffff")) return ip;
  return `${hex.slice(0, 16)}/64`;
}

const ipAttemptsKey = (ip: string) => `login-ip:${sourceKey(ip)}`;
const ipFailuresKey = (ip: string) => `login-ip-failures:${sourceKey(ip)}`;
const emailKey = (email: string) => `login-email:${email}`;

function enforce(verdict: LimitVerdict): void {
  if (!verdict.allowed) throw new TooManyRequests(TOO_MANY, verdict.retryAfterSec);
}

/** Who is signing in: the source address (CF-Connecting-IP) and the normalised e-mail. */
export type SignInSource = { ip: string; email: string };

/**
 * Counts the attempt against the address's ceiling, and as a failure of the address and the
 * e-mail until the password proves right; refuses it when any limit is reached (an attempt
 * refused counts as no failure).
 */
export async function admitLoginAttempt(s: Services, source: SignInSource): Promise<void> {
  const { config } = s;
  const window = config.LOGIN_FAILURE_WINDOW_SEC;
  const [attempts, ipFailures, emailFailures] = await Promise.all([
    s.limiter(ipAttemptsKey(source.ip)).hit(config.LOGIN_IP_MAX_ATTEMPTS, window),
    s.limiter(ipFailuresKey(source.ip)).hit(config.LOGIN_IP_MAX_FAILURES, window),
    s.limiter(emailKey(source.email)).hit(config.LOGIN_MAX_FAILURES, window),
  ]);
  if (attempts.allowed && ipFailures.allowed && emailFailures.allowed) return;
  await Promise.all([
    ipFailures.allowed ? s.limiter(ipFailuresKey(source.ip)).release(window) : undefined,
    emailFailures.allowed ? s.limiter(emailKey(source.email)).release(window) : undefined,
  ]);
  enforce(attempts);
  enforce(ipFailures);
  enforce(emailFailures);
}

/**
 * The right password: the e-mail's failures are forgotten, and this attempt is no failure of the
 * address (its earlier failures stay: one valid account must not reset a spray across others).
 */
export async function clearWrongPasswords(s: Services, source: SignInSource): Promise<void> {
  await Promise.all([
    s.limiter(emailKey(source.email)).reset(),
    s.limiter(ipFailuresKey(source.ip)).release(s.config.LOGIN_FAILURE_WINDOW_SEC),
  ]);
}

export async function admitSignup(s: Services, ip: string): Promise<void> {
  enforce(await s.limiter(`signup-ip:${sourceKey(ip)}`).hit(s.config.SIGNUP_MAX_PER_IP, s.config.SIGNUP_WINDOW_SEC));
}
