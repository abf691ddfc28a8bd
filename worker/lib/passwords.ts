// Password hashing: PBKDF2-HMAC-SHA256 at the highest iteration count the Workers runtime
// accepts (100,000), with a 16-byte salt. The stored form names its scheme and cost,
// "pbkdf2-sha256$<iterations>$<salt>$<hash>", so the cost can be raised later and old
// hashes still verify (and can be upgraded at the next sign-in: see needsRehash).
import { base64url, fromBase64url, timingSafeEqual } from "./crypto.ts";

const SCHEME = "pbkdf2-sha256";
const encoder = new TextEncoder();

async function derive(password: string, salt: Uint8Array, iterations: number): Promise<Uint8Array> {
  const key = await crypto.subtle.importKey("raw", encoder.encode(password), "PBKDF2", false, ["deriveBits"]);
  const bits = await crypto.subtle.deriveBits({ name: "PBKDF2", hash: "SHA-256", salt, iterations }, key, 256);
  return new Uint8Array(bits);
}

export async function hashPassword(password: string, iterations: number): Promise<string> {
  const salt = crypto.getRandomValues(new Uint8Array(16));
  const hash = await derive(password, salt, iterations);
  return `${SCHEME}$${iterations}$${base64url(salt)}$${base64url(hash)}`;
}

export async function verifyPassword(password: string, stored: string): Promise<boolean> {
  const [scheme, iterations, salt, hash] = stored.split("$");
  if (scheme !== SCHEME || !iterations || !salt || !hash) return false;
  const actual = await derive(password, fromBase64url(salt), Number(iterations));
  return timingSafeEqual(actual, fromBase64url(hash));
}

export function needsRehash(stored: string, iterations: number): boolean {
  const [scheme, storedIterations] = stored.split("$");
  return scheme !== SCHEME || Number(storedIterations) < iterations;
}

/**
 * Verified against when the e-mail is unknown, so an unknown e-mail and a wrong password cost
 * the same time and answer the same way: at the configured cost, which real hashes reach at
 * their next sign-in (a fixed cost would let timing tell the two apart once the cost changes).
 */
export const dummyHash = (iterations: number) =>
  `${SCHEME}$${iterations}$AAAAAAAAAAAAAAAAAAAAAA$AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA`;

/** 12 characters minimum, 72 bytes maximum (UTF-8 bytes, so multibyte input counts right). */
export function passwordProblem(password: string, minLength: number, maxBytes: number): string | null {
  if ([...password].length < minLength) return `Password must be at least ${minLength} characters`;
  if (encoder.encode(password).length > maxBytes) return `Password must be at most ${maxBytes} bytes`;
  return null;
}
