// Access tokens: HS256 JWTs (jose), short-lived. Claims carry who the token acts for;
// revocation is by "issued before" instants kept on the user and the account.
import { jwtVerify, SignJWT } from "jose";

export type AccessClaims = {
  /** user id */
  sub: string;
  /** customer (account) id */
  cid: string;
  /** administrator identity during an impersonation */
  imp?: string;
  iat: number;
  exp: number;
};

const key = (secret: string) => new TextEncoder().encode(secret);

export async function signAccessToken(
  claims: { sub: string; cid: string; imp?: string | undefined },
  secret: string,
  ttlSec: number,
): Promise<string> {
  const payload: Record<string, string> = { cid: claims.cid };
  if (claims.imp) payload.imp = claims.imp;
  return new SignJWT(payload)
    .setProtectedHeader({ alg: "HS256", typ: "JWT" })
    .setSubject(claims.sub)
    .setIssuedAt()
    .setExpirationTime(`${ttlSec}s`)
    .sign(key(secret));
}

/** The claims of a valid, unexpired token, or null. */
export async function verifyAccessToken(token: string, secret: string): Promise<AccessClaims | null> {
  try {
    const { payload } = await jwtVerify(token, key(secret), { algorithms: ["HS256"] });
    // Step tokens carry an audience; an access token never does.
    if (payload.aud !== undefined) return null;
    if (typeof payload.sub !== "string" || typeof payload.cid !== "string") return null;
    if (typeof payload.iat !== "number" || typeof payload.exp !== "number") return null;
    return {
      sub: payload.sub,
      cid: payload.cid,
      imp: typeof payload.imp === "string" ? payload.imp : undefined,
      iat: payload.iat,
      exp: payload.exp,
    } as AccessClaims;
  } catch {
    return null;
  }
}

/**
 * Short-lived signed tokens for one step of a flow (passkey registration state, a 2FA
 * login_token, an enroll_token). The purpose is part of the audience, so a token minted
 * for one step is refused by every other; jti lets a step spend it once.
 */
export type StepClaims = { sub: string; cid: string; challenge: string; jti: string; exp: number };

export async function signStepToken(
  purpose: string,
  claims: { sub: string; cid: string; challenge: string },
  secret: string,
  ttlSec: number,
): Promise<string> {
  return new SignJWT({ cid: claims.cid, challenge: claims.challenge })
    .setProtectedHeader({ alg: "HS256", typ: "JWT" })
    .setAudience(`step:${purpose}`)
    .setSubject(claims.sub)
    .setJti(crypto.randomUUID())
    .setIssuedAt()
    .setExpirationTime(`${ttlSec}s`)
    .sign(key(secret));
}

export async function verifyStepToken(purpose: string, token: string, secret: string): Promise<StepClaims | null> {
  try {
    const { payload } = await jwtVerify(token, key(secret), { algorithms: ["HS256"], audience: `step:${purpose}` });
    const { sub, cid, challenge, jti, exp } = payload as Record<string, unknown>;
    if (typeof sub !== "string" || typeof cid !== "string" || typeof challenge !== "string") return null;
    if (typeof jti !== "string" || typeof exp !== "number") return null;
    return { sub, cid, challenge, jti, exp };
  } catch {
    return null;
  }
}

/**
 * Media tokens: a short-lived grant to fetch one file of one call (its recording, its packet
 * capture, its SIP ladder), for players and people that cannot send an Authorization header
 * (passed as `t`). The audience names the file (`media:recording`...), which sets them apart from
 * access tokens (which carry none, and are refused here), from step tokens and from each other;
 * `call` binds one call of one account.
 */
export const MEDIA_FILES = ["recording", "pcap", "sip-ladder"] as const;
export type MediaFileKind = (typeof MEDIA_FILES)[number];

export const mediaTokenAudience = (file: MediaFileKind) => `media:${file}`;

export type MediaClaims = { sub: string; cid: string; call: string; imp?: string | undefined; iat: number; exp: number };

export async function signMediaToken(
  claims: { sub: string; cid: string; call: string; imp?: string | null | undefined },
  secret: string,
  ttlSec: number,
  file: MediaFileKind = "recording",
): Promise<string> {
  const payload: Record<string, string> = { cid: claims.cid, call: claims.call };
  if (claims.imp) payload.imp = claims.imp;
  return new SignJWT(payload)
    .setProtectedHeader({ alg: "HS256", typ: "JWT" })
    .setAudience(mediaTokenAudience(file))
    .setSubject(claims.sub)
    .setIssuedAt()
    .setExpirationTime(`${ttlSec}s`)
    .sign(key(secret));
}

/** The claims of a valid, unexpired media token for `file`, or null. */
export async function verifyMediaToken(token: string, secret: string, file: MediaFileKind = "recording"): Promise<MediaClaims | null> {
  try {
    const { payload } = await jwtVerify(token, key(secret), { algorithms: ["HS256"], audience: mediaTokenAudience(file) });
    const { sub, cid, call, imp, iat, exp } = payload as Record<string, unknown>;
    if (typeof sub !== "string" || typeof cid !== "string" || typeof call !== "string") return null;
    if (typeof iat !== "number" || typeof exp !== "number") return null;
    return { sub, cid, call, imp: typeof imp === "string" ? imp : undefined, iat, exp };
  } catch {
    return null;
  }
}
