// Alert rules (spec: "Alert rules and webhook", Events rule 4) and connected channels (ours):
// every field's default, the errors, a verdict sending one alert per rule with throttling, the
// e-mail's attachments and size cap, Slack's Block Kit limits, and URLs that must stay public.
import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { SLACK_LIMITS } from "../../../worker/services/alerts/messages.ts";
import { testAlertRule } from "../../../worker/services/alerts/rules.ts";
import { deliveryServices } from "../fixtures/delivery.ts";
import { createAccount, latestMailTo, principalOf, testServices, type Session } from "../fixtures/factory.ts";
import { verdictEvent } from "../fixtures/verdict.ts";
import { expectStatus, issuesOf } from "../fixtures/client.ts";

const addRule = async (owner: Session, body: Record<string, unknown> = {}) => {
  const res = await owner.client.post("/api/customer/alert-rules", { name: "NOC", ...body });
  expectStatus(res, 201);
  return res.body;
};

const addChannel = async (owner: Session, body: Record<string, unknown> = {}) => {
  const res = await owner.client.post("/api/customer/alert-channels", {
    kind: "slack",
    url: "https://hooks.slack.com/services/T1/B2/secret-token",
    ...body,
  });
  expectStatus(res, 201);
  return res.body;
};

const rulesStored = async (owner: Session) =>
  (await env.DB.prepare("SELECT COUNT(*) AS n FROM alert_rules WHERE customer_id = ?").bind(owner.account.id).first<{ n: number }>())!.n;

const deliveriesOf = async (ruleId: string) =>
  (
    await env.DB.prepare("SELECT status, channel_id, call_id, error FROM alert_deliveries WHERE rule_id = ? ORDER BY created_at, rowid")
      .bind(ruleId)
      .all()
  ).results as any[];

describe("alert rules", () => {
  it("take every default of the spec", async () => {
    const owner = await createAccount();
    const rule = await addRule(owner);
    expect(rule).toEqual({
      id: expect.any(String),
      name: "NOC",
      enabled: true,
      min_probability: 70,
      categories: null,
      recommendations: null,
      recipients: null,
      throttle_minutes: 0,
      include_transcript: false,
      include_sip_log: false,
      include_pcap: false,
      include_recording: false,
      trigger: "fraud",
      max_mos: null,
      identity_statuses: null,
      screening_rules: null,
      channel_ids: null,
      email_enabled: true,
      created_at: expect.any(String),
      updated_at: expect.any(String),
    });
    expect((await owner.client.get("/api/customer/alert-rules")).body).toEqual([rule]);
  });

  it("need a delivery, a max_mos for a quality trigger, and channels of the account's own (422, nothing stored)", async () => {
    const owner = await createAccount();
    const none = await owner.client.post("/api/customer/alert-rules", { name: "x", email_enabled: false });
    expectStatus(none, 422);
    expect(none.body.detail[0]).toMatchObject({
      loc: ["body", "email_enabled"],
      msg: "the rule needs at least one delivery: email or a connected channel",
    });
    const quality = await owner.client.post("/api/customer/alert-rules", { name: "x", trigger: "quality" });
    expectStatus(quality, 422);
    expect(issuesOf(quality.body)[0]?.loc).toEqual(["body", "max_mos"]);
    const foreign = await addChannel(await createAccount());
    const theirs = await owner.client.post("/api/customer/alert-rules", { name: "x", channel_ids: [foreign.id] });
    expectStatus(theirs, 422);
    expect(issuesOf(theirs.body)[0]?.loc).toEqual(["body", "channel_ids"]);
    const bad = await owner.client.post("/api/customer/alert-rules", { name: "x", recipients: ["not-an-address"], min_probability: -1 });
    expectStatus(bad, 422);
    expect(issuesOf(bad.body).map((d) => d.loc.join("."))).toEqual(expect.arrayContaining(["body.recipients.0", "body.min_probability"]));
    expect(await rulesStored(owner)).toBe(0);
  });

  it("take max_mos as a number or a string", async () => {
    const owner = await createAccount();
    expect((await addRule(owner, { trigger: "quality", max_mos: "3.5" })).max_mos).toBe(3.5);
    expect((await addRule(owner, { trigger: "quality", max_mos: 2 })).max_mos).toBe(2);
    expect((await owner.client.post("/api/customer/alert-rules", { name: "x", max_mos: "low" })).status).toBe(422);
  });

  it("answer 409 past the maximum of 50", async () => {
    const owner = await createAccount();
    const now = new Date().toISOString();
    await env.DB.batch(
      Array.from({ length: 50 }, (_, i) =>
        env.DB.prepare("INSERT INTO alert_rules (id, customer_id, name, created_at, updated_at) VALUES (?, ?, ?, ?, ?)").bind(
          crypto.randomUUID(),
          owner.account.id,
          `rule ${i}`,
          now,
          now,
        ),
      ),
    );
    expect(await owner.client.post("/api/customer/alert-rules", { name: "one too many" })).toMatchObject({
      status: 409,
      body: { detail: "Maximum number of alert rules reached" },
    });
  });

  it("change in place, refuse a change that leaves no delivery, and delete (then 404)", async () => {
    const owner = await createAccount();
    const rule = await addRule(owner);
    const channel = await addChannel(owner);
    const changed = await owner.client.patch(`/api/customer/alert-rules/${rule.id}`, {
      channel_ids: [channel.id],
      email_enabled: false,
      categories: ["robocall"],
    });
    expect(changed.body).toMatchObject({ channel_ids: [channel.id], email_enabled: false, categories: ["robocall"] });
    const left = await owner.client.patch(`/api/customer/alert-rules/${rule.id}`, { channel_ids: [] });
    expectStatus(left, 422);
    expect(left.body.detail[0]).toMatchObject({
      loc: ["body", "channel_ids"],
      msg: "the rule needs at least one delivery: email or a connected channel",
    });
    expect((await owner.client.get("/api/customer/alert-rules")).body).toEqual([changed.body]);
    expect((await owner.client.delete(`/api/customer/alert-rules/${rule.id}`)).status).toBe(204);
    for (const res of [
      await owner.client.delete(`/api/customer/alert-rules/${rule.id}`),
      await owner.client.patch(`/api/customer/alert-rules/${rule.id}`, { name: "x" }),
      await owner.client.post(`/api/customer/alert-rules/${rule.id}/test`),
    ]) {
      expect(res).toMatchObject({ status: 404, body: { detail: "alert rule not found" } });
    }
  });
});

describe("POST /customer/alert-rules/{id}/test", () => {
  it("answers 409 no_delivery when e-mail is on but mail sending is not configured and there is no channel", async () => {
    const owner = await createAccount();
    const rule = await addRule(owner);
    expect(await owner.client.post(`/api/customer/alert-rules/${rule.id}/test`)).toMatchObject({
      status: 409,
      body: { detail: "no_delivery" },
    });
  });

  it("answers 409 no_delivery when e-mail is off and the rule's only channel is disabled", async () => {
    const owner = await createAccount();
    const channel = await addChannel(owner);
    const rule = await addRule(owner, { channel_ids: [channel.id], email_enabled: false });
    await owner.client.patch(`/api/customer/alert-channels/${channel.id}`, { enabled: false });
    const { services, outbound } = deliveryServices();
    await expect(testAlertRule(services, await principalOf(owner), rule.id)).rejects.toMatchObject({ detail: "no_delivery" });
    expect(outbound.posts).toEqual([]);
  });

  it("e-mails the account's address and posts a connection test to each channel", async () => {
    const owner = await createAccount();
    const channel = await addChannel(owner, { label: "#fraud" });
    const rule = await addRule(owner, { channel_ids: [channel.id] });
    const { services, mail, outbound } = deliveryServices();
    const result = await testAlertRule(services, await principalOf(owner), rule.id);
    expect(result).toEqual({
      sent: true,
      error: null,
      latency_ms: expect.any(Number),
      recipients: [owner.email],
      channels: [{ id: channel.id, kind: "slack", label: "#fraud", sent: true, error: null, latency_ms: expect.any(Number) }],
    });
    expect(mail.sent).toEqual([expect.objectContaining({ to: [owner.email], subject: "[Call Shield] Test alert: NOC" })]);
    expect(outbound.posts).toHaveLength(1);
    expect(outbound.posts[0]!.url).toBe("https://hooks.slack.com/services/T1/B2/secret-token");
  });

  it("over HTTP with a channel only: the channel is tried and the answer says what it said", async () => {
    const owner = await createAccount();
    // A name that resolves to no public address: the post is refused before it leaves.
    const channel = await addChannel(owner, { kind: "webhook", url: "https://alerts.invalid/hook" });
    const rule = await addRule(owner, { channel_ids: [channel.id], email_enabled: false });
    const res = await owner.client.post(`/api/customer/alert-rules/${rule.id}/test`);
    expectStatus(res, 200);
    expect(res.body).toMatchObject({
      sent: false,
      recipients: [],
      channels: [{ id: channel.id, kind: "webhook", sent: false, error: expect.stringMatching(/^url_/) }],
    });
  });
});

describe("a verdict at or above a rule's min_probability", () => {
  it("sends one alert per rule by e-mail to the recipients, through the delivery queue", async () => {
    const owner = await createAccount();
    const rule = await addRule(owner, {
      recipients: ["noc@carrier.test", "fraud@carrier.test"],
      categories: ["credit_card_scam"],
      recommendations: ["block"],
    });
    await addRule(owner, { name: "Robocalls only", categories: ["robocall"] });
    const { services, mail, drain, deliveries } = deliveryServices();
    const event = await verdictEvent(owner, { verdict: { probability: 70 } });
    await services.verdicts.deliver(event);
    expect(deliveries.messages).toHaveLength(1);
    expect(mail.sent).toEqual([]); // nothing is sent from inside the pipeline
    await drain();
    expect(mail.sent).toHaveLength(1);
    const [sent] = mail.sent;
    expect(sent!.to).toEqual(["noc@carrier.test", "fraud@carrier.test"]);
    expect(sent!.subject).toBe("[Call Shield] Fraud alert: Card services scam (70%) from +14155550100");
    expect(sent!.text).toContain("Verdict: block, probability 70%, category credit_card_scam");
    expect(sent!.text).toContain("- Asks for the one-time code");
    expect(sent!.text).toContain(`https://shield.test/api/calls/${event.callId}`);
    expect(await deliveriesOf(rule.id)).toEqual([{ status: "sent", channel_id: null, call_id: event.callId, error: null }]);
    // Handed on twice (a redelivered job): still one alert.
    await services.verdicts.deliver(event);
    await drain();
    expect(mail.sent).toHaveLength(1);
  });

  it("below the threshold, outside the categories or recommendations, or disabled, sends nothing", async () => {
    const owner = await createAccount();
    await addRule(owner, { min_probability: 80 });
    await addRule(owner, { min_probability: 10, recommendations: ["allow"] });
    await addRule(owner, { min_probability: 0, enabled: false });
    const { services, deliveries } = deliveryServices();
    await services.verdicts.deliver(await verdictEvent(owner, { verdict: { probability: 79 } }));
    expect(deliveries.messages).toEqual([]);
  });

  it("goes to the account's e-mail through the embedded mail adapter when the rule names no recipients", async () => {
    const owner = await createAccount();
    await addRule(owner);
    const { services, drain } = deliveryServices({ mail: testServices().mail });
    await services.verdicts.deliver(await verdictEvent(owner, { verdict: { probability: 90 } }));
    await drain();
    expect(await latestMailTo(owner.email)).toContain("Fraud alert: Card services scam (90%)");
  });

  it("inside throttle_minutes sends one alert for two verdicts, and logs the second as throttled", async () => {
    const owner = await createAccount();
    const rule = await addRule(owner, { throttle_minutes: 10 });
    const { services, mail, drain } = deliveryServices();
    await services.verdicts.deliver(await verdictEvent(owner, { ani: "+14155550101" }));
    await services.verdicts.deliver(await verdictEvent(owner, { ani: "+14155550102" }));
    await drain();
    expect(mail.sent).toHaveLength(1);
    expect((await deliveriesOf(rule.id)).map((d) => d.status)).toEqual(["sent", "throttled"]);
    // Without throttling, both are sent.
    const open = await addRule(owner, { name: "Every one" });
    await services.verdicts.deliver(await verdictEvent(owner, { ani: "+14155550103" }));
    await services.verdicts.deliver(await verdictEvent(owner, { ani: "+14155550104" }));
    await drain();
    expect((await deliveriesOf(open.id)).map((d) => d.status)).toEqual(["sent", "sent"]);
  });

  it("attaches the files the rule asks for up to the size cap, and links the rest", async () => {
    const owner = await createAccount();
    await addRule(owner, { include_transcript: true, include_recording: true, include_sip_log: true });
    const base = testServices();
    const { services, mail, drain } = deliveryServices({ config: { ...base.config, ALERT_ATTACHMENT_MAX_BYTES: 200 } });
    const event = await verdictEvent(owner);
    const key = `calls/${owner.account.id}/${event.callId}/recording.wav`;
    await env.MEDIA.put(key, new Uint8Array(5_000));
    await env.DB.prepare("UPDATE calls SET recording_wav_path = ?, recording_available = 1 WHERE id = ?").bind(key, event.callId).run();
    await env.DB.prepare("INSERT INTO transcripts (id, customer_id, call_id, language, text, created_at) VALUES (?, ?, ?, 'en', ?, ?)")
      .bind(crypto.randomUUID(), owner.account.id, event.callId, "Caller: read me the code.", new Date().toISOString())
      .run();
    await services.verdicts.deliver(event);
    await drain();
    const [sent] = mail.sent;
    expect(sent!.attachments!.map((a) => [a.filename, a.contentType])).toEqual([["transcript.txt", "text/plain; charset=utf-8"]]);
    expect(new TextDecoder().decode(sent!.attachments![0]!.content)).toBe("Caller: read me the code.");
    expect(sent!.text).toContain(
      `recording.wav (5000 bytes) is over the e-mail size limit; fetch it signed in: https://shield.test/api/calls/${event.callId}/recording`,
    );
  });

  it("with trigger quality alerts on a call whose MOS is at or below max_mos", async () => {
    const owner = await createAccount();
    await addRule(owner, { name: "Poor audio", trigger: "quality", max_mos: 3 });
    const { services, mail, drain } = deliveryServices();
    await services.verdicts.deliver(
      await verdictEvent(owner, { verdict: { probability: 5, recommendation: "allow" }, call: { mos: 3.4 } }),
    );
    await services.verdicts.deliver(
      await verdictEvent(owner, { verdict: { probability: 5, recommendation: "allow" }, call: { mos: 2.1 } }),
    );
    await drain();
    expect(mail.sent.map((m) => m.subject)).toEqual(["[Call Shield] Call quality alert: MOS 2.1 on a call from +14155550100"]);
  });

  it("posts a Block Kit message within Slack's limits to a Slack channel, and JSON to a webhook channel", async () => {
    const owner = await createAccount();
    const slack = await addChannel(owner);
    const hook = await addChannel(owner, { kind: "webhook", url: "https://siem.carrier.example/alerts" });
    const rule = await addRule(owner, { channel_ids: [slack.id, hook.id], email_enabled: false });
    const { services, outbound, drain } = deliveryServices();
    const huge = "x".repeat(10_000);
    const event = await verdictEvent(owner, {
      verdict: {
        title: `A <very> long & odd title ${huge}`,
        summary: huge,
        red_flags: Array.from({ length: 20 }, (_, i) => `flag ${i} ${"y".repeat(400)}`),
        entity: huge,
      },
    });
    await services.verdicts.deliver(event);
    await drain();
    expect(outbound.posts.map((p) => p.url)).toEqual([
      "https://hooks.slack.com/services/T1/B2/secret-token",
      "https://siem.carrier.example/alerts",
    ]);
    const message = JSON.parse(outbound.posts[0]!.body);
    expectWithinSlackLimits(message);
    expect(message.blocks[0].text.text).toContain("A <very> long & odd title");
    const json = JSON.parse(outbound.posts[1]!.body);
    expect(json).toMatchObject({
      type: "alert",
      rule: { id: rule.id, name: "NOC", trigger: "fraud" },
      call: { id: event.callId, ani: "+14155550100" },
      verdict: { probability: 96 },
    });
    expect((await deliveriesOf(rule.id)).map((d) => [d.channel_id, d.status])).toEqual([
      [null, "sent"],
      [slack.id, "sent"],
      [hook.id, "sent"],
    ]);
  });

  it("logs a channel that fails without stopping the others", async () => {
    const owner = await createAccount();
    const slack = await addChannel(owner);
    const rule = await addRule(owner, { channel_ids: [slack.id] });
    const { services, outbound, mail, drain } = deliveryServices();
    outbound.answers = [500];
    await services.verdicts.deliver(await verdictEvent(owner));
    await drain();
    expect(mail.sent).toHaveLength(1);
    expect((await deliveriesOf(rule.id)).map((d) => [d.channel_id, d.status, d.error])).toEqual([
      [null, "sent", `slack ${slack.id}: http_500`],
      [slack.id, "failed", "http_500"],
    ]);
  });
});

/** Block Kit's documented limits (api.slack.com/reference/block-kit). */
function expectWithinSlackLimits(message: any) {
  expect(typeof message.text).toBe("string");
  expect(message.text.length).toBeLessThanOrEqual(SLACK_LIMITS.fallbackText);
  expect(message.blocks.length).toBeLessThanOrEqual(50);
  for (const block of message.blocks) {
    if (block.type === "header") {
      expect(block.text.type).toBe("plain_text");
      expect(block.text.text.length).toBeLessThanOrEqual(150);
    }
    if (block.type === "section") {
      if (block.text) expect(block.text.text.length).toBeLessThanOrEqual(3000);
      if (block.fields) {
        expect(block.fields.length).toBeLessThanOrEqual(10);
        for (const f of block.fields) expect(f.text.length).toBeLessThanOrEqual(2000);
      }
    }
    if (block.type === "context") expect(block.elements.length).toBeLessThanOrEqual(10);
    if (block.type === "actions") {
      for (const e of block.elements) {
        expect(e.text.text.length).toBeLessThanOrEqual(75);
        expect(e.url.length).toBeLessThanOrEqual(3000);
      }
    }
    expect(["header", "section", "context", "actions", "divider"]).toContain(block.type);
  }
}

describe("alert channels (our extension)", () => {
  it("keep the URL write-only and show its host", async () => {
    const owner = await createAccount();
    const channel = await addChannel(owner, { label: "#fraud" });
    expect(channel).toEqual({
      id: expect.any(String),
      kind: "slack",
      label: "#fraud",
      enabled: true,
      url_host: "hooks.slack.com",
      url_set: true,
      created_at: expect.any(String),
      updated_at: expect.any(String),
    });
    const listed = await owner.client.get("/api/customer/alert-channels");
    expect(listed.body).toEqual([channel]);
    expect(JSON.stringify(listed.body)).not.toContain("secret-token");
    const stored = await env.DB.prepare("SELECT secret_enc FROM alert_channels WHERE id = ?")
      .bind(channel.id)
      .first<{ secret_enc: string }>();
    expect(stored!.secret_enc).not.toContain("secret-token");
    const changed = await owner.client.patch(`/api/customer/alert-channels/${channel.id}`, {
      url: "https://hooks.example.net/x",
      enabled: false,
    });
    expect(changed.body).toMatchObject({ url_host: "hooks.example.net", enabled: false });
    expect((await owner.client.delete(`/api/customer/alert-channels/${channel.id}`)).status).toBe(204);
    expect(await owner.client.delete(`/api/customer/alert-channels/${channel.id}`)).toMatchObject({
      status: 404,
      body: { detail: "Alert channel not found" },
    });
  });

  it("refuse a URL that is not https or leads to a private, loopback, link-local or metadata address (422 naming url)", async () => {
    const owner = await createAccount();
    for (const url of [
      "http://hooks.slack.com/services/x",
      "https://10.0.0.5/hook",
      "https://127.0.0.1/hook",
      "https://169.254.169.254/latest/meta-data",
      "https://[::1]/hook",
      "https://[fd00:ec2::254]/hook",
      "https://[::ffff:192.168.1.1]/hook",
      "https://metadata.google.internal/computeMetadata",
      "https://localhost/hook",
      "https://user:pw@hooks.slack.com/x",
      "not a url",
    ]) {
      const res = await owner.client.post("/api/customer/alert-channels", { kind: "webhook", url });
      expectStatus(res, 422, url);
      expect(issuesOf(res.body)[0]?.loc, url).toEqual(["body", "url"]);
    }
    expect((await owner.client.get("/api/customer/alert-channels")).body).toEqual([]);
  });

  it("check the name's addresses on every post: a name repointed to a private address is refused", async () => {
    const owner = await createAccount();
    const channel = await addChannel(owner, { kind: "webhook", url: "https://hooks.carrier.example/a" });
    const { services, outbound } = deliveryServices();
    outbound.addresses.set("hooks.carrier.example", ["203.0.113.9", "10.1.2.3"]);
    const { testAlertChannel } = await import("../../../worker/services/alerts/channels.ts");
    const result = await testAlertChannel(services, await principalOf(owner), channel.id);
    expect(result).toMatchObject({ sent: false, error: "url_private_address" });
    expect(outbound.posts).toEqual([]);
    outbound.addresses.set("hooks.carrier.example", ["2606:4700::6810:84e5"]);
    expect(await testAlertChannel(services, await principalOf(owner), channel.id)).toMatchObject({ sent: true, error: null });
  });

  it("answer 409 past the maximum of 20", async () => {
    const owner = await createAccount();
    const now = new Date().toISOString();
    await env.DB.batch(
      Array.from({ length: 20 }, () =>
        env.DB.prepare("INSERT INTO alert_channels (id, customer_id, kind, created_at, updated_at) VALUES (?, ?, 'slack', ?, ?)").bind(
          crypto.randomUUID(),
          owner.account.id,
          now,
          now,
        ),
      ),
    );
    expect((await owner.client.post("/api/customer/alert-channels", { kind: "slack", url: "https://hooks.slack.com/x" })).status).toBe(409);
  });
});
