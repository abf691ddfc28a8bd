// Destination webhooks for voice agents (spec: Events rule 6): a voice-AI provider posts call
// events to the destination's webhook_url; each is verified against the destination's
// webhook_secret in the provider's scheme, and webhook_last_event_at / _status / _error follow.
import { Webhook } from "standardwebhooks";
import { describe, expect, it } from "vitest";
import { hmacSha256Hex } from "../../../worker/lib/crypto.ts";
import { bodyOf, request } from "../fixtures/client.ts";
import { addDestination } from "../fixtures/destination.ts";
import { createAccount, type Session } from "../fixtures/factory.ts";

const SECRET = "wsec_0123456789abcdef0123456789";

async function agent(owner: Session, provider: string, secret: string | null = SECRET) {
  return addDestination(owner, { kind: "voice_ai", provider, agent_id: "agent_1", ...(secret ? { webhook_secret: secret } : {}) });
}

/** POSTs to the destination's webhook URL as the provider would (the path of webhook_url, on the test origin). */
function post(webhookUrl: string | null | undefined, body: string, headers: Record<string, string> = {}) {
  if (!webhookUrl) throw new Error("the destination has no webhook_url");
  return request("POST", new URL(webhookUrl).pathname, { rawBody: body, headers: { "content-type": "application/json", ...headers } });
}

const destinationOf = async (owner: Session, id: string) =>
  bodyOf(await owner.client.get("/api/customer/destinations"), 200).find((d) => d.id === id);

const now = () => Math.floor(Date.now() / 1000);

describe("a voice agent's callback", () => {
  it("verified in ElevenLabs' scheme is taken, and the destination says when and how it went", async () => {
    const owner = await createAccount();
    const dest = await agent(owner, "elevenlabs");
    expect(dest).toMatchObject({ webhook_url: expect.stringContaining("/api/webhooks/voice/"), webhook_last_event_at: null });
    const body = JSON.stringify({ type: "post_call_transcription", data: { agent_id: "agent_1" } });
    const t = now();
    const res = await post(dest.webhook_url, body, { "ElevenLabs-Signature": `t=${t},v0=${await hmacSha256Hex(SECRET, `${t}.${body}`)}` });
    expect(res).toMatchObject({ status: 200, body: { received: true, event: "post_call_transcription" } });
    expect(await destinationOf(owner, dest.id)).toMatchObject({
      webhook_last_event_at: expect.any(String),
      webhook_last_status: "ok",
      webhook_last_error: null,
    });
  });

  it("with a wrong or stale signature is refused with 401 and the destination shows the error", async () => {
    const owner = await createAccount();
    const dest = await agent(owner, "elevenlabs");
    const body = JSON.stringify({ type: "post_call_transcription" });
    const t = now();
    const forged = await post(dest.webhook_url, body, {
      "ElevenLabs-Signature": `t=${t},v0=${await hmacSha256Hex("not the secret", `${t}.${body}`)}`,
    });
    expect(forged.status).toBe(401);
    const stale = t - 3_600;
    const old = await post(dest.webhook_url, body, {
      "ElevenLabs-Signature": `t=${stale},v0=${await hmacSha256Hex(SECRET, `${stale}.${body}`)}`,
    });
    expect(old.status).toBe(401);
    expect(await post(dest.webhook_url, body)).toMatchObject({ status: 401 });
    expect(await destinationOf(owner, dest.id)).toMatchObject({
      webhook_last_event_at: expect.any(String),
      webhook_last_status: "rejected",
      webhook_last_error: expect.stringContaining("did not verify"),
    });
  });

  it("is refused when the destination has no webhook_secret to verify it with", async () => {
    const owner = await createAccount();
    const dest = await agent(owner, "vapi", null);
    expect(dest.needs_webhook).toBe(true);
    const res = await post(dest.webhook_url, "{}", { "X-Vapi-Secret": "anything" });
    expect(res.status).toBe(401);
    expect((await destinationOf(owner, dest.id))?.webhook_last_error).toContain("no webhook_secret");
  });

  it("is verified in Retell's, Vapi's, OpenAI's (Standard Webhooks) and the generic HMAC scheme", async () => {
    const owner = await createAccount();
    const body = JSON.stringify({ event: "call_ended", call: { call_id: "c1" } });

    const retell = await agent(owner, "retell");
    const v = String(Date.now());
    expect(
      (await post(retell.webhook_url, body, { "x-retell-signature": `v=${v},d=${await hmacSha256Hex(SECRET, body + v)}` })).status,
    ).toBe(200);

    const vapi = await agent(owner, "vapi");
    expect((await post(vapi.webhook_url, body, { "X-Vapi-Secret": SECRET })).status).toBe(200);
    expect((await post(vapi.webhook_url, body, { "X-Vapi-Secret": `${SECRET}x` })).status).toBe(401);

    const whsec = `whsec_${btoa("0123456789abcdef0123456789abcdef")}`;
    const openai = await agent(owner, "openai_realtime", whsec);
    const id = "msg_123";
    const at = new Date();
    const signature = new Webhook(whsec).sign(id, at, body);
    const signed = { "webhook-id": id, "webhook-timestamp": String(Math.floor(at.getTime() / 1000)), "webhook-signature": signature };
    expect((await post(openai.webhook_url, body, signed)).status).toBe(200);
    expect((await post(openai.webhook_url, body.replace("c1", "c2"), signed)).status).toBe(401);

    const bland = await agent(owner, "bland");
    expect((await post(bland.webhook_url, body, { "X-Webhook-Signature": `sha256=${await hmacSha256Hex(SECRET, body)}` })).status).toBe(
      200,
    );
    expect((await post(bland.webhook_url, body, { "X-Webhook-Signature": await hmacSha256Hex(SECRET, `${body} `) })).status).toBe(401);
  });

  it("answers 404 for a token no destination has, and 422 for a verified body that is not a JSON object", async () => {
    expect((await post("https://x.test/api/webhooks/voice/0123456789abcdef0123456789abcdef", "{}")).status).toBe(404);
    const owner = await createAccount();
    const dest = await agent(owner, "vapi");
    expect((await post(dest.webhook_url, "[1,2]", { "X-Vapi-Secret": SECRET })).status).toBe(422);
    expect((await destinationOf(owner, dest.id))?.webhook_last_status).toBe("invalid");
  });
});
