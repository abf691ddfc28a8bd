// A software WebAuthn authenticator for tests: an ES256 key pair made with WebCrypto,
// producing the same registration and assertion payloads a browser passes on from a real
// authenticator ("none" attestation), with a sign counter that rises on each use.
import { isoCBOR } from "@simplewebauthn/server/helpers";
import { ORIGIN } from "./client.ts";

const b64url = (bytes: Uint8Array) =>
  btoa(String.fromCharCode(...bytes))
    .replace(/\+/g, "-")
    .replace(/\//g, "_")
    .replace(/=+$/, "");
const fromB64url = (text: string) =>
  Uint8Array.from(atob(text.replace(/-/g, "+").replace(/_/g, "/") + "===".slice((text.length + 3) % 4)), (c) => c.charCodeAt(0));
const utf8 = (text: string) => new TextEncoder().encode(text);
const sha256 = async (bytes: Uint8Array) => new Uint8Array(await crypto.subtle.digest("SHA-256", bytes));
const concat = (...parts: Uint8Array[]) => {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
};
const uint32 = (n: number) => new Uint8Array([n >>> 24, (n >>> 16) & 255, (n >>> 8) & 255, n & 255]);

/** ECDSA signatures from WebCrypto are r||s; WebAuthn carries them DER-encoded. */
function derSignature(raw: Uint8Array): Uint8Array {
  const integer = (bytes: Uint8Array) => {
    let i = 0;
    while (i < bytes.length - 1 && bytes[i] === 0) i++;
    let v = bytes.slice(i);
    if (v[0]! & 0x80) v = concat(new Uint8Array([0]), v);
    return concat(new Uint8Array([0x02, v.length]), v);
  };
  const body = concat(integer(raw.slice(0, 32)), integer(raw.slice(32)));
  return concat(new Uint8Array([0x30, body.length]), body);
}

const FLAG_UP = 0x01;
const FLAG_UV = 0x04;
const FLAG_AT = 0x40;

export class SoftwareAuthenticator {
  readonly credentialId = crypto.getRandomValues(new Uint8Array(32));
  signCount = 0;
  private keys!: CryptoKeyPair;

  static async create(): Promise<SoftwareAuthenticator> {
    const authenticator = new SoftwareAuthenticator();
    authenticator.keys = (await crypto.subtle.generateKey({ name: "ECDSA", namedCurve: "P-256" }, true, [
      "sign",
      "verify",
    ])) as CryptoKeyPair;
    return authenticator;
  }

  get id(): string {
    return b64url(this.credentialId);
  }

  private async cosePublicKey(): Promise<Uint8Array> {
    const jwk = (await crypto.subtle.exportKey("jwk", this.keys.publicKey)) as JsonWebKey;
    return isoCBOR.encode(
      new Map<number, number | Uint8Array>([
        [1, 2], // kty: EC2
        [3, -7], // alg: ES256
        [-1, 1], // crv: P-256
        [-2, fromB64url(jwk.x!)],
        [-3, fromB64url(jwk.y!)],
      ]),
    );
  }

  /** navigator.credentials.create() for these creation options. */
  async register(options: { challenge: string; rp: { id?: string } }, origin = ORIGIN) {
    const rpId = options.rp.id ?? new URL(origin).hostname;
    const clientDataJSON = utf8(JSON.stringify({ type: "webauthn.create", challenge: options.challenge, origin, crossOrigin: false }));
    const attested = concat(
      new Uint8Array(16), // AAGUID
      new Uint8Array([0, this.credentialId.length]),
      this.credentialId,
      await this.cosePublicKey(),
    );
    const authData = concat(await sha256(utf8(rpId)), new Uint8Array([FLAG_UP | FLAG_UV | FLAG_AT]), uint32(this.signCount), attested);
    const attestationObject = isoCBOR.encode(
      new Map<string, unknown>([
        ["fmt", "none"],
        ["attStmt", new Map()],
        ["authData", authData],
      ]) as never,
    );
    return {
      id: this.id,
      rawId: this.id,
      type: "public-key" as const,
      response: {
        clientDataJSON: b64url(clientDataJSON),
        attestationObject: b64url(attestationObject),
        transports: ["internal"],
      },
      clientExtensionResults: {},
    };
  }

  /** navigator.credentials.get() for these request options; each assertion raises the counter. */
  async assert(options: { challenge: string; rpId?: string }, origin = ORIGIN) {
    const rpId = options.rpId ?? new URL(origin).hostname;
    this.signCount += 1;
    const clientDataJSON = utf8(JSON.stringify({ type: "webauthn.get", challenge: options.challenge, origin, crossOrigin: false }));
    const authData = concat(await sha256(utf8(rpId)), new Uint8Array([FLAG_UP | FLAG_UV]), uint32(this.signCount));
    const signed = concat(authData, await sha256(clientDataJSON));
    const raw = new Uint8Array(await crypto.subtle.sign({ name: "ECDSA", hash: "SHA-256" }, this.keys.privateKey, signed));
    return {
      id: this.id,
      rawId: this.id,
      type: "public-key" as const,
      response: {
        clientDataJSON: b64url(clientDataJSON),
        authenticatorData: b64url(authData),
        signature: b64url(derSignature(raw)),
      },
      clientExtensionResults: {},
    };
  }
}
