// The two hash functions of HTTP Digest (RFC 7616): SHA-256 and MD5, as lower-case hex, and the
// hashed username an account is found by when a client sends userhash=true (section 3.4.4).
// Workers' WebCrypto digests MD5 as well (a non-standard extension kept for such protocols).

export type DigestAlgorithm = "SHA-256" | "MD5";

const encoder = new TextEncoder();

export function toHex(bytes: ArrayBuffer | Uint8Array): string {
  const view = bytes instanceof Uint8Array ? bytes : new Uint8Array(bytes);
  let out = "";
  for (const b of view) out += b.toString(16).padStart(2, "0");
  return out;
}

export async function hashHex(algorithm: DigestAlgorithm, text: string): Promise<string> {
  return toHex(await crypto.subtle.digest(algorithm, encoder.encode(text)));
}

/** H(username:realm): the username a client sends with userhash=true. */
export const userhashOf = (algorithm: DigestAlgorithm, username: string, realm: string) => hashHex(algorithm, `${username}:${realm}`);
