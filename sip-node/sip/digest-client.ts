// Answering a destination's digest challenge (RFC 7616 §3.4; RFC 2617 for MD5 with qop=auth).
import { createHash, randomBytes } from "node:crypto";

export type Challenge = { realm: string; nonce: string; opaque: string | null; algorithm: string; qop: string | null };

/** Parses a WWW-Authenticate or Proxy-Authenticate value of the Digest scheme. */
export function parseChallenge(value: string): Challenge | null {
  const text = value.trimStart();
  if (text.slice(0, 6).toLowerCase() !== "digest" || !isBlank(text.charCodeAt(6))) return null;
  const params = authParams(text.slice(7));
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

const isBlank = (c: number) => c === 0x20 || c === 0x09 || c === 0x0d || c === 0x0a;
const isTokenChar = (c: number) =>
  (c >= 0x30 && c <= 0x39) || (c >= 0x41 && c <= 0x5a) || (c >= 0x61 && c <= 0x7a) || c === 0x5f || c === 0x2d;

/**
 * The name=value pairs of a challenge (RFC 7616 §3.3: auth-param, values a token or a quoted
 * string with backslash escapes). A scanner rather than a regular expression: every step moves
 * forward, so a hostile header costs its length, never its square. Anything that is not a pair
 * is skipped, as a lenient reader of other implementations' challenges should.
 */
function authParams(text: string): Record<string, string> {
  const params: Record<string, string> = {};
  let i = 0;
  const skipBlanks = () => {
    while (i < text.length && isBlank(text.charCodeAt(i))) i++;
  };
  while (i < text.length) {
    if (!isTokenChar(text.charCodeAt(i))) {
      i++;
      continue;
    }
    const nameStart = i;
    while (i < text.length && isTokenChar(text.charCodeAt(i))) i++;
    const name = text.slice(nameStart, i).toLowerCase();
    skipBlanks();
    if (text[i] !== "=") continue;
    i++;
    skipBlanks();
    if (text[i] === '"') {
      let value = "";
      let j = i + 1;
      for (; j < text.length && text[j] !== '"'; j++) {
        if (text[j] === "\\" && j + 1 < text.length) j++;
        value += text[j];
      }
      if (j < text.length) {
        params[name] = value;
        i = j + 1;
        continue;
      }
    }
    const valueStart = i;
    while (i < text.length && text[i] !== "," && !isBlank(text.charCodeAt(i))) i++;
    params[name] = text.slice(valueStart, i);
  }
  return params;
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
