// View tokens of public share links: what the link's password unlocks, sent back as
// `X-Share-Token` or `t`. Short-lived HS256 JWTs whose audience sets them apart from access,
// step and recording tokens; `sub` binds one share link and `pwv` the password it was unlocked
// with, so a rotation ends the views opened under the old password at once.
import { jwtVerify, SignJWT } from "jose";
import { sha256Hex } from "./crypto.ts";

export const SHARE_VIEW_AUDIENCE = "share:view";

const key = (secret: string) => new TextEncoder().encode(secret);

/** Names the password a view was unlocked with, without revealing anything of it. */
export const passwordVersion = async (passwordHash: string) => (await sha256Hex(passwordHash)).slice(0, 16);

export async function signShareViewToken(shareId: string, passwordHash: string, secret: string, ttlSec: number): Promise<string> {
  return new SignJWT({ pwv: await passwordVersion(passwordHash) })
    .setProtectedHeader({ alg: "HS256", typ: "JWT" })
    .setAudience(SHARE_VIEW_AUDIENCE)
    .setSubject(shareId)
    .setIssuedAt()
    .setExpirationTime(`${ttlSec}s`)
    .sign(key(secret));
}

/** True when the token is a valid, unexpired view of this share link under its current password. */
export async function verifyShareViewToken(token: string, share: { id: string; passwordHash: string }, secret: string): Promise<boolean> {
  try {
    const { payload } = await jwtVerify(token, key(secret), { algorithms: ["HS256"], audience: SHARE_VIEW_AUDIENCE });
    return payload.sub === share.id && payload.pwv === (await passwordVersion(share.passwordHash));
  } catch {
    return false;
  }
}
