// Callbacks from voice-AI providers (spec: Events rule 6): each voice_ai destination has a URL of
// ours (/api/webhooks/voice/<token>, services/trunk/destinations.ts) that its provider posts call events
// to. A callback is taken only when it verifies against the destination's webhook_secret in the
// provider's own scheme; the destination's webhook_last_event_at, webhook_last_status and
// webhook_last_error say how the last one went (status: ok, rejected or invalid).
import { eq } from "drizzle-orm";
import { destinations } from "../../../schema/network.ts";
import { hmacSha256Hex, sha256Hex, timingSafeEqual } from "../../lib/crypto.ts";
import { decryptSecret, destinationSecretContext } from "../../lib/secrets.ts";
import { nowIso } from "../../lib/time.ts";
import type { Services } from "../context.ts";
import { InvalidField, NotFound, Unauthenticated } from "../errors.ts";
import { signatureOf } from "./signing.ts";

type DestinationRow = typeof destinations.$inferSelect;
type Headers = { get(name: string): string | null };

/** How far a signed timestamp may be from our clock. */
const TOLERANCE_SEC = 30 * 60;

const encoder = new TextEncoder();
const sameText = (a: string, b: string) => timingSafeEqual(encoder.encode(a), encoder.encode(b));

const hmacHex = hmacSha256Hex;

const fresh = (seconds: number, now: number) => Number.isFinite(seconds) && Math.abs(now / 1000 - seconds) <= TOLERANCE_SEC;

/** "t=1,v0=abc" → {t: "1", v0: "abc"} */
const pairs = (header: string) => Object.fromEntries(header.split(",").map((part) => part.trim().split("=", 2) as [string, string]));

/** ElevenLabs: ElevenLabs-Signature "t=<unix>,v0=<hex HMAC-SHA256 of `t.body`>". */
async function elevenLabs(secret: string, headers: Headers, body: string, now: number) {
  const header = headers.get("elevenlabs-signature");
  if (!header) return false;
  const { t, v0 } = pairs(header);
  return !!t && !!v0 && fresh(Number(t), now) && sameText(await hmacHex(secret, `${t}.${body}`), v0.toLowerCase());
}

/** Retell: x-retell-signature "v=<unix ms>,d=<hex HMAC-SHA256 of body + v>", keyed with the Retell API key. */
async function retell(secret: string, headers: Headers, body: string, now: number) {
  const header = headers.get("x-retell-signature");
  if (!header) return false;
  const { v, d } = pairs(header);
  if (!v || !d) return false;
  const seconds = Number(v) > 1e11 ? Number(v) / 1000 : Number(v);
  return fresh(seconds, now) && sameText(await hmacHex(secret, `${body}${v}`), d.toLowerCase());
}

/** Vapi: the server URL secret itself in X-Vapi-Secret. */
const vapi = async (secret: string, headers: Headers) => {
  const given = headers.get("x-vapi-secret");
  return given !== null && sameText(given, secret);
};

/** Standard Webhooks (OpenAI's webhooks): webhook-id, webhook-timestamp, webhook-signature "v1,<base64>" (several may be listed). */
async function standardWebhooks(secret: string, headers: Headers, body: string, now: number) {
  const id = headers.get("webhook-id");
  const timestamp = Number(headers.get("webhook-timestamp"));
  const signatures = headers.get("webhook-signature");
  if (!id || !signatures || !fresh(timestamp, now)) return false;
  const expected = await signatureOf(secret, id, timestamp, body);
  return signatures.split(" ").some((candidate) => sameText(candidate, expected));
}

/** A plain HMAC of the body: X-Webhook-Signature (or X-Signature) "<hex>" or "sha256=<hex>". */
async function bodyHmac(secret: string, headers: Headers, body: string) {
  const header = headers.get("x-webhook-signature") ?? headers.get("x-signature");
  if (!header) return false;
  return sameText(await hmacHex(secret, body), header.replace(/^sha256=/i, "").toLowerCase());
}

type Verifier = (secret: string, headers: Headers, body: string, now: number) => Promise<boolean>;

/** Each provider's scheme (resources/voice-providers.ts names them); others: a body HMAC or Standard Webhooks. */
const VERIFIERS: Record<string, Verifier[]> = {
  elevenlabs: [elevenLabs],
  retell: [retell],
  vapi: [vapi],
  openai_realtime: [standardWebhooks],
};
const GENERIC: Verifier[] = [bodyHmac, standardWebhooks];

async function verified(provider: string | null, secret: string, headers: Headers, body: string): Promise<boolean> {
  const now = Date.now();
  for (const verify of VERIFIERS[provider ?? ""] ?? GENERIC) if (await verify(secret, headers, body, now)) return true;
  return false;
}

async function note(s: Services, row: DestinationRow, status: "ok" | "rejected" | "invalid", error: string | null) {
  await s.db
    .update(destinations)
    .set({ webhookLastEventAt: nowIso(), webhookLastStatus: status, webhookLastError: error })
    .where(eq(destinations.id, row.id));
}

/**
 * POST /webhooks/voice/{token}: 404 for an unknown token, 401 when the callback does not verify
 * (or the destination has no secret to verify it with), 422 for a body that is not a JSON object.
 * Returns the event's type as the provider named it, when it did.
 */
export async function receiveVoiceWebhook(
  s: Services,
  token: string,
  headers: Headers,
  body: string,
): Promise<{ received: true; event: string | null }> {
  const row = await s.db
    .select()
    .from(destinations)
    .where(eq(destinations.webhookTokenHash, await sha256Hex(token)))
    .get();
  if (!row || row.kind !== "voice_ai") throw new NotFound();
  const secret = row.webhookSecretEnc
    ? await decryptSecret(s.config.ENCRYPTION_KEY, row.webhookSecretEnc, destinationSecretContext(row.id, "webhook_secret"))
    : null;
  if (!secret) {
    await note(s, row, "rejected", "no webhook_secret is stored on the destination to verify callbacks with");
    throw new Unauthenticated("invalid_signature");
  }
  if (!(await verified(row.provider, secret, headers, body))) {
    await note(s, row, "rejected", `the callback's signature did not verify (${row.provider ?? "generic"} scheme)`);
    throw new Unauthenticated("invalid_signature");
  }
  let event: unknown;
  try {
    event = JSON.parse(body);
  } catch {
    event = null;
  }
  if (!event || typeof event !== "object" || Array.isArray(event)) {
    await note(s, row, "invalid", "the callback's body is not a JSON object");
    throw new InvalidField([], "the body must be a JSON object");
  }
  await note(s, row, "ok", null);
  return { received: true, event: eventTypeOf(event as Record<string, unknown>) };
}

function eventTypeOf(event: Record<string, unknown>): string | null {
  const message = event.message as Record<string, unknown> | undefined;
  for (const candidate of [event.type, event.event, event.event_type, message?.type]) {
    if (typeof candidate === "string" && candidate.length <= 100) return candidate;
  }
  return null;
}
