// Reading a Digest Authorization header (RFC 7616 section 3.4): its auth-params, the RFC 8187
// username*, and every check that needs nothing but the header itself.
//
// Hand-written rather than taken from a package: the parsers on npm (auth-header,
// http-auth-utils, @mreal/digest-auth) do not keep this one's rules (a parameter given twice, or
// an unterminated quoted string, makes the header malformed; names are case-insensitive), and
// http-auth-utils refuses the `userhash` parameter.
import type { DigestAlgorithm } from "../../services/exchange/hash.ts";
import { ALGORITHMS } from "./compute.ts";

const TOKEN = /^[A-Za-z0-9!#$%&'*+.^_`|~-]+/;

/** The auth-params of a "Digest ..." credential, names lower-cased; null when it is not Digest or is malformed. */
export function parseDigestCredentials(header: string): Map<string, string> | null {
  const scheme = /^\s*Digest\s+/i.exec(header);
  if (!scheme) return null;
  const s = header;
  const params = new Map<string, string>();
  let i = scheme[0].length;
  while (i < s.length) {
    while (i < s.length && (s[i] === "," || s[i] === " " || s[i] === "\t")) i++;
    if (i >= s.length) break;
    const name = TOKEN.exec(s.slice(i))?.[0];
    if (!name) return null;
    i += name.length;
    while (s[i] === " " || s[i] === "\t") i++;
    if (s[i] !== "=") return null;
    i++;
    while (s[i] === " " || s[i] === "\t") i++;
    let value = "";
    if (s[i] === '"') {
      i++;
      while (i < s.length && s[i] !== '"') {
        if (s[i] === "\\" && i + 1 < s.length) i++;
        value += s[i];
        i++;
      }
      if (s[i] !== '"') return null;
      i++;
    } else {
      value = /^[^\s,]*/.exec(s.slice(i))![0];
      i += value.length;
    }
    const key = name.toLowerCase();
    if (params.has(key)) return null;
    params.set(key, value);
  }
  return params;
}

/** RFC 8187 ext-value (username*=UTF-8''J%C3%A4s%C3%B8n), as RFC 7616 section 3.4.4 allows for non-ASCII names. */
function decodeExtValue(value: string): string | null {
  const match = /^UTF-8'[^']*'(.*)$/i.exec(value);
  if (!match) return null;
  try {
    return decodeURIComponent(match[1]!);
  } catch {
    return null;
  }
}

/** What a well-formed Digest credential says (qop=auth, with nc and cnonce). */
export type DigestCredentials = {
  algorithm: DigestAlgorithm;
  /** The name as sent: the account's username, or H(username:realm) when `byUserhash`. */
  username: string;
  /** userhash=true, and the name was not given as username* (which is never hashed). */
  byUserhash: boolean;
  realm: string;
  nonce: string;
  uri: string;
  response: string;
  cnonce: string;
  /** Eight hexadecimal digits. */
  nc: string;
  opaque: string | undefined;
};

export type CredentialsOutcome = { ok: true; credentials: DigestCredentials } | { ok: false; message: string };

/** The credentials of an Authorization header, or why they cannot be checked (the message of the 401). */
export function readCredentials(authorization: string | undefined): CredentialsOutcome {
  if (!authorization || !/^\s*Digest\s/i.test(authorization)) return { ok: false, message: "authentication required" };
  const p = parseDigestCredentials(authorization);
  if (!p) return { ok: false, message: "malformed Digest credentials" };
  const algorithm = (p.get("algorithm") ?? "MD5").toUpperCase() as DigestAlgorithm;
  if (!ALGORITHMS.includes(algorithm)) return { ok: false, message: "unsupported Digest algorithm (use SHA-256 or MD5)" };
  const userhash = (p.get("userhash") ?? "false").toLowerCase() === "true";
  const extName = p.has("username*") ? decodeExtValue(p.get("username*")!) : null;
  const username = extName ?? p.get("username");
  const { realm, nonce, uri, response, cnonce, nc } = Object.fromEntries(p) as Record<string, string | undefined>;
  if (!username || !realm || !nonce || !uri || !response) return { ok: false, message: "incomplete Digest credentials" };
  if ((p.get("qop") ?? "").toLowerCase() !== "auth" || !cnonce || !nc || !/^[0-9a-fA-F]{8}$/.test(nc)) {
    return { ok: false, message: "Digest credentials need qop=auth with nc and cnonce" };
  }
  const byUserhash = userhash && !extName;
  return { ok: true, credentials: { algorithm, username, byUserhash, realm, nonce, uri, response, cnonce, nc, opaque: p.get("opaque") } };
}
