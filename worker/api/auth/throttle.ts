// Sign-in and signup throttling (spec rule 3). Per source IP every attempt counts. Per
// e-mail only wrong passwords count, and the owner's successful sign-in clears them.
import type { Bindings, Config } from "../../env.ts";
import { enforce, limiterFor } from "../../lib/limits.ts";

const TOO_MANY = "too_many_attempts";

const ipKey = (ip: string) => `login-ip:${ip}`;
const emailKey = (email: string) => `login-email:${email}`;

export async function admitLoginAttempt(env: Bindings, config: Config, ip: string, email: string): Promise<void> {
  const window = config.LOGIN_FAILURE_WINDOW_SEC;
  enforce(await limiterFor(env, ipKey(ip)).hit(config.LOGIN_IP_MAX_ATTEMPTS, window), TOO_MANY);
  enforce(await limiterFor(env, emailKey(email)).check(config.LOGIN_MAX_FAILURES, window), TOO_MANY);
}

export async function countWrongPassword(env: Bindings, config: Config, email: string): Promise<void> {
  await limiterFor(env, emailKey(email)).hit(config.LOGIN_MAX_FAILURES, config.LOGIN_FAILURE_WINDOW_SEC);
}

export async function clearWrongPasswords(env: Bindings, email: string): Promise<void> {
  await limiterFor(env, emailKey(email)).reset();
}

export async function admitSignup(env: Bindings, config: Config, ip: string): Promise<void> {
  enforce(await limiterFor(env, `signup-ip:${ip}`).hit(config.SIGNUP_MAX_PER_IP, config.SIGNUP_WINDOW_SEC), TOO_MANY);
}
