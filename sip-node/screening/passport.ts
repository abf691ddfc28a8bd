// A SHAKEN PASSporT (RFC 8225, RFC 8588, ATIS-1000074) read from its JWS compact form without
// checking anything but its shape: the protected header (alg ES256, typ passport, ppt shaken, x5u)
// and the claims (attest, orig.tn, dest.tn, iat, origid). The signature is checked elsewhere,
// against the certificate x5u names.
import { Attestation } from "../../schema/screening.ts";

export type Passport = {
  x5u: string;
  attestation: "A" | "B" | "C";
  origTn: string;
  destTn: string[];
  iat: number;
  origid: string | null;
};

export type PassportProblem = { reason: "malformed" | "unsupported_ppt" };

/** A PASSporT larger than this is no carrier's (theirs are under 1 KiB). */
const MAX_TOKEN = 8192;
const BASE64URL = /^[A-Za-z0-9_-]+$/;

/** The PASSporT in `token`, or why it cannot be one: malformed, or a ppt other than shaken. */
export function decodePassport(token: string): Passport | PassportProblem {
  if (token.length > MAX_TOKEN) return { reason: "malformed" };
  const parts = token.split(".");
  if (parts.length !== 3 || !parts.every((part) => BASE64URL.test(part))) return { reason: "malformed" };
  const header = json(parts[0]!);
  const claims = json(parts[1]!);
  if (!header || !claims) return { reason: "malformed" };
  if (header.ppt !== "shaken") return { reason: header.ppt === undefined ? "malformed" : "unsupported_ppt" };
  if (header.alg !== "ES256" || header.typ !== "passport") return { reason: "malformed" };
  const x5u = header.x5u;
  if (typeof x5u !== "string" || x5u.length === 0 || x5u.length > 2048) return { reason: "malformed" };
  const attestation = Attestation.safeParse(claims.attest);
  const origTn = telephoneNumber(object(claims.orig)?.tn);
  const destTn = destinations(object(claims.dest)?.tn);
  const { iat, origid } = claims;
  if (!attestation.success || origTn === null || destTn === null || !Number.isSafeInteger(iat)) return { reason: "malformed" };
  if (origid !== undefined && (typeof origid !== "string" || origid.length > 128)) return { reason: "malformed" };
  return { x5u, attestation: attestation.data, origTn, destTn, iat: iat as number, origid: origid ?? null };
}

function json(part: string): Record<string, unknown> | null {
  try {
    return object(JSON.parse(Buffer.from(part, "base64url").toString("utf8")));
  } catch {
    return null;
  }
}

function object(value: unknown): Record<string, unknown> | null {
  return typeof value === "object" && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : null;
}

/** A telephone number as RFC 8225 §5.2.1 writes it (digits, perhaps a leading +, at most 32 characters). */
function telephoneNumber(value: unknown): string | null {
  return typeof value === "string" && /^\+?[0-9*#]{1,31}$/.test(value) ? value : null;
}

/** dest.tn: an array of numbers (RFC 8225); one number alone is taken too. At most 10 are kept. */
function destinations(value: unknown): string[] | null {
  const list = Array.isArray(value) ? value : [value];
  if (list.length === 0) return null;
  const numbers = list.map(telephoneNumber);
  return numbers.every((n) => n !== null) ? (numbers as string[]).slice(0, 10) : null;
}
