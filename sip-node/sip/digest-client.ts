// Answering a destination's digest challenge (RFC 7616 §3.4; RFC 2617 for MD5 with qop=auth).
import { createHash, randomBytes } from "node:crypto";

export type Challenge = { realm: string; nonce: string; opaque: string | null; algorithm: string; qop: string | null };

/** Parses a WWW-Authenticate or Proxy-Authenticate value of the Digest scheme. */
export function parseChallenge(value: string): Challenge | null {
  const match = /^\s*Digest\s+(.*)$/is.exec(value);
  if (!match) return null;
  const params: Record<string, string> = {};
  for (const m of match[1]!.matchAll(/([a-zA-Z0-9_-]+)\s*=\s*(?:"((?:[^"\\]|\\.)*)"|([^,\s]*))/g)) {
    params[m[1]!.toLowerCase()] = (m[2] ?? m[3] ?? "").replace(/\\(.)/g, "$1");
  }
  if (!params.realm || !params.nonce) return null;
  const qops = (params.qop ?? "").split(",").map((q) => q.trim());
  return {
    realm: params.realm,
    nonce: params.nonce,
    opaque: params.opaque ?? null,
    algorithm: params.algorithm ?? "MD5",
    qop: qops.includes("auth") ? "auth" : null,
  };
}

const HASHES: Record<string, string> = { MD5: "md5", "SHA-256": "sha256", "SHA-512-256": "sha512-256" };

/** The Authorization (or Proxy-Authorization) value for one request. */
export function digestAuthorization(
  challenge: Challenge,
  credentials: { username: string; password: string },
  method: string,
  uri: string,
  nc = 1,
  cnonce = randomBytes(12).toString("hex"),
): string | null {
  const algorithm = HASHES[challenge.algorithm.toUpperCase()] ?? null;
  if (!algorithm) return null;
  const h = (text: string) => createHash(algorithm).update(text).digest("hex");
  const ha1 = h(`${credentials.username}:${challenge.realm}:${credentials.password}`);
  const ha2 = h(`${method}:${uri}`);
  const ncText = nc.toString(16).padStart(8, "0");
  const response = challenge.qop
    ? h(`${ha1}:${challenge.nonce}:${ncText}:${cnonce}:${challenge.qop}:${ha2}`)
    : h(`${ha1}:${challenge.nonce}:${ha2}`);
  const parts = [
    `username="${credentials.username}"`,
    `realm="${challenge.realm}"`,
    `nonce="${challenge.nonce}"`,
    `uri="${uri}"`,
    `response="${response}"`,
    `algorithm=${challenge.algorithm}`,
  ];
  if (challenge.qop) parts.push(`qop=${challenge.qop}`, `nc=${ncText}`, `cnonce="${cnonce}"`);
  if (challenge.opaque !== null) parts.push(`opaque="${challenge.opaque}"`);
  return `Digest ${parts.join(", ")}`;
}
