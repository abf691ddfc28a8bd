// Authentication of the SM-DP+'s notifications: an HMAC-SHA256 over "<timestamp>.<raw body>" under
// a shared secret (ESIM_NOTIFY_SECRET; when unset, one derived from ENCRYPTION_KEY), sent as
//   X-Smdp-Timestamp: <unix seconds>
//   X-Smdp-Signature: sha256=<hex>
// The timestamp must be within ESIM_NOTIFY_MAX_SKEW_SEC of our clock; together with the
// notification's seq_number (a repeat is acknowledged without effect) that bounds replays.
import { timingSafeEqual } from "../../lib/crypto.ts";
import { nowSec } from "../../lib/time.ts";
import type { ExchangeServices } from "../../services/exchange/context.ts";
import { toHex } from "../../services/exchange/hash.ts";
import { ExchangeError } from "../respond.ts";

const encoder = new TextEncoder();

async function hmacHex(secret: string, message: string): Promise<string> {
  const key = await crypto.subtle.importKey("raw", encoder.encode(secret), { name: "HMAC", hash: "SHA-256" }, false, ["sign"]);
  return toHex(await crypto.subtle.sign("HMAC", key, encoder.encode(message)));
}

/** The secret the SM-DP+ signs with. */
export async function notifySecret(deps: Pick<ExchangeServices, "settings" | "config">): Promise<string> {
  return deps.settings.notifySecret ?? hmacHex(deps.config.ENCRYPTION_KEY, "esim-smdp-notify v1");
}

/** The X-Smdp-Signature value of a body sent at `timestamp` (what the SM-DP+ computes). */
export async function signNotification(secret: string, timestamp: number, body: string): Promise<string> {
  return `sha256=${await hmacHex(secret, `${timestamp}.${body}`)}`;
}

const refused = (why: string) => new ExchangeError(401, `notification refused: ${why}`);

export async function verifyNotification(
  deps: Pick<ExchangeServices, "settings" | "config">,
  headers: { timestamp: string | undefined; signature: string | undefined },
  body: string,
): Promise<void> {
  if (!headers.timestamp || !/^\d{1,12}$/.test(headers.timestamp)) throw refused("X-Smdp-Timestamp missing or not unix seconds");
  if (!headers.signature) throw refused("X-Smdp-Signature missing");
  const ts = Number(headers.timestamp);
  if (Math.abs(nowSec() - ts) > deps.settings.notifyMaxSkewSec) throw refused("X-Smdp-Timestamp too far from the server's clock");
  const expected = await signNotification(await notifySecret(deps), ts, body);
  if (!timingSafeEqual(encoder.encode(expected), encoder.encode(headers.signature.trim().toLowerCase()))) throw refused("bad signature");
}
