// The account webhook (spec: "Alert rules and webhook", Events rule 1): settings with a write-only
// secret, the test event, and events from verdicts delivered from the queue with retries and
// backoff, each attempt logged; signatures checked by the Standard Webhooks reference library
// as a receiver would; private addresses refused on every attempt.
import { env } from "cloudflare:test";
import { Webhook } from "standardwebhooks";
import { describe, expect, it, vi } from "vitest";
import { OpenAiCompatibleTranscriber } from "../../../worker/providers/transcription/openai-compatible.ts";
import { analyseOnDemand } from "../../../worker/services/analysis/on-demand.ts";
import { runAnalysisJob } from "../../../worker/services/analysis/pipeline.ts";
import { redeliverWebhook, testWebhook } from "../../../worker/services/webhooks/account-webhook.ts";
import { endedCall, sampleOut, stereoWav, uploadRecording } from "../fixtures/call.ts";
import { deliveryServices } from "../fixtures/delivery.ts";
import { createAccount, principalOf, type Session } from "../fixtures/factory.ts";
import { uniqueAni, verdictEvent } from "../fixtures/verdict.ts";
import { bodyOf, expectStatus, firstOf, issuesOf } from "../fixtures/client.ts";
import { WEBHOOK_EVENT_KINDS } from "../../../worker/resources/webhook.ts";

/** A Standard Webhooks secret (whsec_ and base64 of 24 random bytes), as receivers generate them. */
const newSecret = () => `whsec_${btoa(String.fromCharCode(...crypto.getRandomValues(new Uint8Array(24))))}`;

const HOOK = "https://hooks.carrier.example/call-shield";

async function configure(owner: Session, secret = newSecret(), url = HOOK) {
  const res = await owner.client.put("/api/customer/webhook", { url, secret });
  expectStatus(res, 200);
  return secret;
}

/** What a receiver does: verify with the reference library, then read the event. */
function receive(secret: string, post: { body: string; headers: Record<string, string> }, options?: { format: "raw" }) {
  return new Webhook(secret, options).verify(post.body, post.headers) as { type: string; timestamp: string; data: any };
}

const attemptsOf = async (deliveryId: string) =>
  (
    await env.DB.prepare("SELECT attempt, status_code, error FROM webhook_delivery_attempts WHERE delivery_id = ? ORDER BY attempt")
      .bind(deliveryId)
      .all()
  ).results as any[];

describe("webhook settings", () => {
  it("start empty, keep the secret write-only, and refuse a URL without a secret (422 webhook_secret_required)", async () => {
    const owner = await createAccount();
    expect((await owner.client.get("/api/customer/webhook")).body).toEqual({ url: null, secret_set: false });
    const bare = await owner.client.put("/api/customer/webhook", { url: HOOK });
    expectStatus(bare, 422);
    expect(bare.body.detail[0]).toMatchObject({ loc: ["body", "secret"], msg: "webhook_secret_required" });
    expect((await owner.client.get("/api/customer/webhook")).body).toEqual({ url: null, secret_set: false });

    const secret = newSecret();
    const set = await owner.client.put("/api/customer/webhook", { url: HOOK, secret });
    expect(set.body).toEqual({ url: HOOK, secret_set: true });
    expect(JSON.stringify((await owner.client.get("/api/customer/webhook")).body)).not.toContain(secret.slice(6));
    const stored = await env.DB.prepare("SELECT webhook_secret_enc FROM customers WHERE id = ?").bind(owner.account.id).first<any>();
    expect(stored.webhook_secret_enc).not.toContain(secret.slice(6));
    // The account shows the URL too.
    expect(bodyOf(await owner.client.get("/api/auth/me"), 200).webhook_url).toBe(HOOK);

    const unset = await owner.client.put("/api/customer/webhook", { secret: null });
    expectStatus(unset, 422);
    expect(issuesOf(unset.body)[0]).toMatchObject({ loc: ["body", "secret"], msg: "webhook_secret_required" });
    expect((await owner.client.put("/api/customer/webhook", { url: null })).body).toEqual({ url: null, secret_set: true });
  });

  it("refuse a URL that is not https or leads to a private address (422 naming url)", async () => {
    const owner = await createAccount();
    for (const url of [
      "http://hooks.carrier.example/x",
      "https://192.168.0.10/x",
      "https://169.254.169.254/x",
      "https://[::1]/x",
      "ftp://x.example/",
    ]) {
      const res = await owner.client.put("/api/customer/webhook", { url, secret: newSecret() });
      expectStatus(res, 422, url);
      expect(issuesOf(res.body)[0]?.loc, url).toEqual(["body", "url"]);
    }
    expect(
      issuesOf(bodyOf(await owner.client.put("/api/customer/webhook", { url: HOOK, secret: "whsec_!!notbase64!!" }), 422))[0]?.loc,
    ).toEqual(["body", "secret"]);
  });
});

describe("POST /customer/webhook/test", () => {
  it("answers 200 with error webhook_not_configured when there is no URL or secret", async () => {
    const owner = await createAccount();
    expect(await owner.client.post("/api/customer/webhook/test")).toMatchObject({
      status: 200,
      body: { delivered: false, status_code: null, error: "webhook_not_configured", latency_ms: 0 },
    });
  });

  it("sends one signed webhook.test event that the reference verifier accepts, and refuses tampered", async () => {
    const owner = await createAccount();
    const secret = await configure(owner);
    const { services, outbound } = deliveryServices();
    const result = await testWebhook(services, await principalOf(owner));
    expect(result).toEqual({ delivered: true, status_code: 200, error: null, latency_ms: expect.any(Number) });
    expect(outbound.posts).toHaveLength(1);
    const post = outbound.posts[0]!;
    expect(post.url).toBe(HOOK);
    expect(post.headers["webhook-signature"]).toMatch(/^v1,[A-Za-z0-9+/]+=*$/);
    expect(Math.abs(Number(post.headers["webhook-timestamp"]) - Date.now() / 1000)).toBeLessThan(5);
    const event = receive(secret, post);
    expect(event).toMatchObject({ type: "webhook.test", data: { account_id: owner.account.id } });
    expect(() => receive(secret, { ...post, body: post.body.replace("webhook.test", "webhook.tesT") })).toThrow();
    expect(() => receive(newSecret(), post)).toThrow();
    expect(() => receive(secret, { ...post, headers: { ...post.headers, "webhook-id": "msg_other" } })).toThrow();
  });

  it("signs with a plain secret's own bytes (receivers pass it raw)", async () => {
    const owner = await createAccount();
    const secret = "a plain shared secret of ours";
    await configure(owner, secret);
    const { services, outbound } = deliveryServices();
    expect((await testWebhook(services, await principalOf(owner))).delivered).toBe(true);
    expect(receive(secret, outbound.posts[0]!, { format: "raw" })).toMatchObject({ type: "webhook.test" });
  });

  it("over HTTP answers 200 with the receiver's status code, or why nothing was sent", async () => {
    const owner = await createAccount();
    await configure(owner, newSecret(), "https://hooks.nowhere.invalid/x");
    expect(await owner.client.post("/api/customer/webhook/test")).toMatchObject({
      status: 200,
      body: { delivered: false, status_code: null, error: "url_unresolvable" },
    });
    await configure(owner);
    const { services, outbound } = deliveryServices();
    outbound.answers = [410];
    expect(await testWebhook(services, await principalOf(owner))).toMatchObject({ delivered: false, status_code: 410, error: "http_410" });
  });
});

describe("events from verdicts", () => {
  it("call.analyzed for every verdict, call.route_alert with a route alert, automation.number_controlled for a control", async () => {
    const owner = await createAccount();
    const secret = await configure(owner);
    await owner.client.post("/api/automation/rules", { name: "Block" });
    const { services, outbound, drain } = deliveryServices();
    const routeAlert = { kind: "no_live_party", detail: "no sound on the called side" };
    const event = await verdictEvent(owner, { ani: uniqueAni(), routeAlert });
    await services.verdicts.deliver(event);
    expect(outbound.posts).toEqual([]); // nothing leaves from inside the pipeline
    await drain();
    const received = outbound.posts.map((post) => receive(secret, post));
    expect(received.map((e) => e.type).sort()).toEqual(["automation.number_controlled", "call.analyzed", "call.route_alert"]);
    const analyzed = received.find((e) => e.type === "call.analyzed")!;
    expect(analyzed.data).toEqual({
      call: {
        id: event.callId,
        ani: event.call.ani,
        dialed: event.call.dialed,
        started_at: event.call.startedAt,
        destination_id: null,
        attestation: null,
        identity_status: null,
        identity_reason: null,
      },
      verdict: expect.objectContaining({
        analysis_id: event.analysisId,
        probability: 96,
        recommendation: "block",
        category: "credit_card_scam",
      }),
      route_alert: routeAlert,
      screening: null,
    });
    const controlled = received.find((e) => e.type === "automation.number_controlled")!;
    expect(controlled.data).toMatchObject({ call_id: event.callId, control: { action: "block", ani: event.call.ani!.replace("+", "") } });
    const list = await owner.client.get("/api/customer/webhook/deliveries");
    expectStatus(list, 200);
    expect(list.body.total).toBe(3);
    expect(list.body.items.map((d) => [d.status, d.attempts])).toEqual([
      ["delivered", 1],
      ["delivered", 1],
      ["delivered", 1],
    ]);
  });

  it("call.analyzed carries what screening found before answer: the attestation, identity status and the screening result", async () => {
    const owner = await createAccount();
    const secret = await configure(owner);
    const { services, outbound, drain } = deliveryServices();
    const screening = {
      identity: null,
      flags: [{ rule: "caller_id_equals_dialled", detail: "the caller ID is the number dialled", action: "flag" as const }],
      action: null,
      rule: null,
    };
    const event = await verdictEvent(owner, { ani: uniqueAni() });
    const screened = {
      ...event,
      call: {
        ...event.call,
        screening: { attestation: "B" as const, identity_status: "failed" as const, identity_reason: "orig_mismatch", screening },
      },
    };
    await services.verdicts.deliver(screened);
    await drain();
    const analyzed = outbound.posts.map((post) => receive(secret, post)).find((e) => e.type === "call.analyzed")!;
    expect(analyzed.data.call).toMatchObject({ attestation: "B", identity_status: "failed", identity_reason: "orig_mismatch" });
    expect(analyzed.data.screening).toEqual(screening);
  });

  it("is sent nowhere when the account has no webhook", async () => {
    const owner = await createAccount();
    const { services, deliveries } = deliveryServices();
    await services.verdicts.deliver(await verdictEvent(owner));
    expect(deliveries.messages).toEqual([]);
  });

  it("comes from the real pipeline: a job's verdict reaches the webhook as call.analyzed", async () => {
    const { owner, callId } = await endedCall(undefined, { seconds: 20 });
    const secret = await configure(owner);
    await sampleOut(callId);
    await uploadRecording(callId, stereoWav(20, { caller: "talk", callee: "talk" }));
    const fetch = vi.fn(async () =>
      Response.json({ text: "Hello.", language: "en", duration: 20, segments: [{ start: 0, end: 1, text: "Hello." }] }),
    );
    const transcriber = new OpenAiCompatibleTranscriber({ baseUrl: "http://transcriber.test/v1", model: "whisper-1", fetch });
    const { services, outbound, drain, deliveries } = deliveryServices({ transcriber });
    services.queues.analysis = { send: async () => {} } as unknown as Queue<unknown>;
    const { job_id } = await analyseOnDemand(services, await principalOf(owner), callId);
    expect(await runAnalysisJob(services, job_id)).toEqual({ outcome: "done" });
    expect(deliveries.messages.length).toBeGreaterThanOrEqual(1);
    await drain();
    const analyzed = outbound.posts.map((p) => receive(secret, p)).find((e) => e.type === "call.analyzed");
    expect(analyzed?.data.call.id).toBe(callId);
  });
});

describe("delivery", () => {
  it("to a receiver that fails twice then succeeds: delivered exactly once, three attempts logged, backoff between", async () => {
    const owner = await createAccount();
    const secret = await configure(owner);
    const { services, outbound, drain } = deliveryServices();
    outbound.answers = [500, new Error("connection reset"), 200, 200];
    await services.verdicts.deliver(await verdictEvent(owner));
    const ran = await drain();
    expect(ran.map((m) => m.delaySeconds)).toEqual([0, 30, 120]);
    expect(outbound.posts).toHaveLength(3);
    // The same event each time: one webhook-id and one body, each attempt signed anew.
    expect(new Set(outbound.posts.map((p) => p.headers["webhook-id"])).size).toBe(1);
    expect(new Set(outbound.posts.map((p) => p.body)).size).toBe(1);
    for (const post of outbound.posts) expect(receive(secret, post).type).toBe("call.analyzed");
    const delivery = firstOf(bodyOf(await owner.client.get("/api/customer/webhook/deliveries"), 200).items, "a delivery");
    expect(delivery).toMatchObject({
      kind: "call.analyzed",
      status: "delivered",
      attempts: 3,
      status_code: 200,
      error: null,
      next_attempt_at: null,
    });
    expect(await attemptsOf(delivery.id)).toEqual([
      { attempt: 1, status_code: 500, error: "http_500" },
      { attempt: 2, status_code: null, error: expect.stringContaining("connection reset") },
      { attempt: 3, status_code: 200, error: null },
    ]);
    const detail = await owner.client.get(`/api/customer/webhook/deliveries/${delivery.id}`);
    expectStatus(detail, 200);
    expect(detail.body.attempt_log?.map((a) => a.status_code)).toEqual([500, null, 200]);
    // A doubled queue message for a delivered event posts nothing more.
    const { runDelivery } = await import("../../../worker/queues/deliveries.ts");
    await runDelivery(services, { type: "webhook", delivery_id: delivery.id });
    expect(outbound.posts).toHaveLength(3);
  });

  it("gives up after 10 attempts over about a day", async () => {
    const owner = await createAccount();
    await configure(owner);
    const { services, outbound, drain } = deliveryServices();
    outbound.answers = [503];
    await services.verdicts.deliver(await verdictEvent(owner));
    const ran = await drain();
    const RETRY_DELAYS_SEC = services.config.WEBHOOK_RETRY_DELAYS_SEC;
    expect(RETRY_DELAYS_SEC).toEqual([30, 120, 600, 1_800, 3_600, 7_200, 14_400, 28_800, 28_800]);
    expect(outbound.posts).toHaveLength(RETRY_DELAYS_SEC.length + 1);
    expect(ran.slice(1).map((m) => m.delaySeconds)).toEqual(RETRY_DELAYS_SEC);
    const hours = RETRY_DELAYS_SEC.reduce((a, b) => a + b, 0) / 3600;
    expect(hours).toBeGreaterThan(20);
    expect(hours).toBeLessThan(28);
    const delivery = firstOf(bodyOf(await owner.client.get("/api/customer/webhook/deliveries"), 200).items, "a delivery");
    expect(delivery).toMatchObject({ status: "failed", attempts: 10, status_code: 503, next_attempt_at: null });
  });

  it("never posts to a name that resolves to a private address; the attempt says why", async () => {
    const owner = await createAccount();
    await configure(owner);
    const { services, outbound, drain } = deliveryServices();
    outbound.addresses.set("hooks.carrier.example", ["169.254.169.254"]);
    await services.verdicts.deliver(await verdictEvent(owner));
    await drain();
    expect(outbound.posts).toEqual([]);
    const delivery = firstOf(bodyOf(await owner.client.get("/api/customer/webhook/deliveries"), 200).items, "a delivery");
    expect(delivery).toMatchObject({ status: "failed", error: "url_private_address" });
    // Repointed to a public address, a redelivery goes through.
    outbound.addresses.set("hooks.carrier.example", ["93.184.215.14"]);
    const again = await redeliverWebhook(services, await principalOf(owner), delivery.id);
    expect(again).toMatchObject({ status: "delivered", attempts: 11 });
    expect(outbound.posts).toHaveLength(1);
  });

  it("redeliver and the delivery log answer 404 for an unknown delivery", async () => {
    const owner = await createAccount();
    const id = crypto.randomUUID();
    expect((await owner.client.get(`/api/customer/webhook/deliveries/${id}`)).status).toBe(404);
    expect(await owner.client.post(`/api/customer/webhook/deliveries/${id}/redeliver`)).toMatchObject({
      status: 404,
      body: { detail: "Webhook delivery not found" },
    });
  });
});

describe("the OpenAPI document", () => {
  it("documents each event kind in its webhooks section, with the signature headers", async () => {
    const owner = await createAccount();
    // The document describes every route but its own.
    const doc = (await owner.client.get("/api/openapi.json")).body as {
      webhooks: Record<string, { post: { parameters: { name: string }[]; description: string } }>;
    };
    expect(Object.keys(doc.webhooks).sort()).toEqual([...WEBHOOK_EVENT_KINDS].sort());
    const analyzed = doc.webhooks["call.analyzed"]?.post;
    expect(analyzed?.parameters.map((p) => p.name)).toEqual(["webhook-id", "webhook-timestamp", "webhook-signature"]);
    expect(analyzed?.description).toContain("HMAC-SHA256");
  });
});
