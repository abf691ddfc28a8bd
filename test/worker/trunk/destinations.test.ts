// Destinations (spec: Destination resource; "Trunk, whitelist, destinations, routing") and the
// voice-provider catalogue: defaults, kinds, provider defaults, one default per account, the 50
// limit, validation and tenancy (a destination's secrets: destination-secrets.test.ts).
import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { bodyOf, expectStatus, firstOf, issuesOf, request } from "../fixtures/client.ts";
import type { Schemas } from "../fixtures/api-reply.ts";
import { addDestination, destinationRowOf, listDestinations, VOICE_WEBHOOK_URL, type DestinationRow } from "../fixtures/destination.ts";
import { addMember, createAccount } from "../fixtures/factory.ts";

const PATH = "/api/customer/destinations";
/** The locations named by a 422 body, e.g. ["body.port"]. */
const locs = (body: Schemas["Error"]) => issuesOf(body).map((i) => i.loc.join("."));

describe("creating destinations", () => {
  it("fills every default of a SIP destination", async () => {
    const owner = await createAccount();
    const res = await owner.client.post(PATH, { host: "sbc.carrier.test" });
    expectStatus(res, 201);
    expect(res.body).toEqual({
      id: expect.stringMatching(/^[0-9a-f-]{36}$/),
      host: "sbc.carrier.test",
      port: 5060,
      transport: "udp",
      is_default: false,
      label: null,
      kind: "sip",
      provider: null,
      agent_id: null,
      config: null,
      tech_prefix: null,
      has_credential: false,
      needs_credential: false,
      webhook_url: null,
      has_webhook_secret: false,
      has_provider_key: false,
      needs_webhook: false,
      webhook_last_event_at: null,
      webhook_last_status: null,
      webhook_last_error: null,
      monitor_enabled: false,
      processing: "full",
      sample_rate: 1,
      sample_mode: "analyse",
      transfer_mode: "platform",
      monitor_supported: null,
      monitor_status: "unknown",
      monitor_last_check_at: null,
      monitor_last_change_at: null,
      monitor_rtt_ms: null,
      monitor_last_code: null,
      monitor_last_error: null,
      created_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
    });
    expect(await listDestinations(owner)).toEqual([res.body]);
  });

  it("stores every field of a SIP destination as given", async () => {
    const owner = await createAccount();
    const body = {
      host: "203.0.113.10",
      port: 5080,
      transport: "tcp",
      is_default: true,
      label: "Backup SBC",
      kind: "sip",
      agent_id: null,
      config: { ring_timeout: 30, headers: ["X-Tenant"] },
      tech_prefix: "7788#",
      monitor_enabled: true,
      processing: "record_only",
      sample_rate: 10,
      sample_mode: "record",
      transfer_mode: "refer",
    };
    const created = await addDestination(owner, body);
    expect(created).toMatchObject({ ...body, has_credential: false, needs_credential: false, needs_webhook: false, webhook_url: null });
  });

  it("makes a voice_ai destination from its provider's defaults, with a webhook URL", async () => {
    const owner = await createAccount();
    const providers = bodyOf(await owner.client.get("/api/customer/voice-providers"), 200);
    for (const provider of providers) {
      const created = await addDestination(owner, { kind: "voice_ai", provider: provider.key, agent_id: "+15550100200" });
      expect(created, provider.key).toMatchObject({
        kind: "voice_ai",
        provider: provider.key,
        agent_id: "+15550100200",
        host: provider.default_host,
        port: provider.default_port,
        transport: provider.default_transport,
        has_credential: false,
        needs_credential: provider.challenges_invite,
        needs_webhook: provider.sends_webhooks,
      });
      expect(created.webhook_url).toMatch(VOICE_WEBHOOK_URL);
    }
    const urls = (await listDestinations(owner)).map((d) => d.webhook_url);
    expect(new Set(urls).size).toBe(providers.length);
  });

  it("lets a voice_ai destination name its own host, port and transport", async () => {
    const owner = await createAccount();
    const created = await addDestination(owner, {
      kind: "voice_ai",
      provider: "vapi",
      host: "sip.eu.vapi.ai",
      port: 5070,
      transport: "tcp",
    });
    expect(created).toMatchObject({ host: "sip.eu.vapi.ai", port: 5070, transport: "tcp", provider: "vapi" });
  });

  it("accepts IPv4, IPv6 and DNS names, stored in one form", async () => {
    const owner = await createAccount();
    for (const [host, stored] of [
      ["198.51.100.7", "198.51.100.7"],
      ["2001:db8::1", "2001:db8::1"],
      ["[2001:DB8::2]", "2001:db8::2"],
      ["PBX.Carrier.Example.", "pbx.carrier.example"],
      ["edge-1.sip.carrier.example", "edge-1.sip.carrier.example"],
    ]) {
      expect((await addDestination(owner, { host })).host, host).toBe(stored);
    }
  });
});

describe("voice providers", () => {
  it("lists the catalogue with defaults, codecs, agent identifier, auth and webhooks", async () => {
    const owner = await createAccount();
    const res = await owner.client.get("/api/customer/voice-providers");
    expectStatus(res, 200);
    const keys = res.body.map((p) => p.key);
    expect(keys).toEqual(expect.arrayContaining(["elevenlabs", "retell", "vapi", "bland", "synthflow", "openai_realtime"]));
    for (const p of res.body) {
      expect(Object.keys(p).sort(), p.key).toEqual(
        [
          "agent_id_kind",
          "agent_id_label",
          "challenges_invite",
          "codecs",
          "default_host",
          "default_port",
          "default_transport",
          "docs_url",
          "key",
          "name",
          "sends_webhooks",
          "tls_port",
          "transports",
          "webhook_signature",
        ].sort(),
      );
      expect(["udp", "tcp", "tls"]).toContain(p.default_transport);
      expect(p.transports).toContain(p.default_transport);
      expect(p.codecs.length).toBeGreaterThan(0);
      expect(typeof p.challenges_invite).toBe("boolean");
      expect(typeof p.sends_webhooks).toBe("boolean");
    }
    expect(res.body.find((p) => p.key === "elevenlabs")).toMatchObject({
      default_host: "sip.rtc.elevenlabs.io",
      agent_id_kind: "phone_number",
    });
    expect(res.body.find((p) => p.key === "openai_realtime")).toMatchObject({
      default_host: "sip.api.openai.com",
      default_transport: "tls",
      agent_id_kind: "project_id",
    });
  });

  it("needs a credential", async () => {
    expect((await request("GET", "/api/customer/voice-providers")).status).toBe(401);
    expect((await request("GET", PATH)).status).toBe(401);
    expect((await request("POST", PATH, { body: { host: "sbc.carrier.test" } })).status).toBe(401);
  });
});

describe("listing, changing and deleting", () => {
  it("lists newest first, patches in place and deletes", async () => {
    const owner = await createAccount();
    const first = await addDestination(owner, { label: "first" });
    const second = await addDestination(owner, { label: "second" });
    const third = await addDestination(owner, { label: "third" });
    expect((await listDestinations(owner)).map((d) => d.label)).toEqual(["third", "second", "first"]);

    const change = {
      host: "sbc2.carrier.test",
      port: 5062,
      transport: "tls",
      label: "renamed",
      tech_prefix: "99",
      monitor_enabled: true,
      processing: "relay_only",
      sample_rate: 3,
      sample_mode: "record",
      transfer_mode: "refer",
      config: { a: 1 },
    };
    const patched = await owner.client.patch(`${PATH}/${second.id}`, change);
    expectStatus(patched, 200);
    expect(patched.body).toMatchObject({ id: second.id, ...change, created_at: second.created_at });
    expect((await listDestinations(owner)).find((d) => d.id === second.id)).toEqual(patched.body);

    // Nullable fields clear with null; an empty patch changes nothing.
    const cleared = await owner.client.patch(`${PATH}/${second.id}`, { label: null, tech_prefix: null, config: null });
    expect(cleared.body).toMatchObject({ label: null, tech_prefix: null, config: null, host: "sbc2.carrier.test" });
    expect((await owner.client.patch(`${PATH}/${second.id}`, {})).body).toEqual(cleared.body);

    expect((await owner.client.delete(`${PATH}/${first.id}`)).status).toBe(204);
    expect((await listDestinations(owner)).map((d) => d.id)).toEqual([third.id, second.id]);
    const again = await owner.client.delete(`${PATH}/${first.id}`);
    expectStatus(again, 404);
    expect(again.body).toEqual({ detail: "Destination not found" });
    expect((await owner.client.patch(`${PATH}/${first.id}`, { label: "x" })).status).toBe(404);
  });

  it("is open to members of the account, not only the owner", async () => {
    const owner = await createAccount();
    const member = await addMember(owner);
    const made = await addDestination(member, { label: "by member" });
    expect((await listDestinations(owner)).map((d) => d.id)).toEqual([made.id]);
    expect((await member.client.delete(`${PATH}/${made.id}`)).status).toBe(204);
  });

  it("unhooks the whitelist and drops the routing rules of a deleted destination, in one batch", async () => {
    const owner = await createAccount();
    const other = await createAccount();
    const doomed = await addDestination(owner, { label: "doomed" });
    const kept = await addDestination(owner, { label: "kept" });
    const now = new Date().toISOString();
    const ip = (customerId: string, destinationId: string, cidr: string) =>
      env.DB.prepare(
        "INSERT INTO whitelist_ips (id, customer_id, cidr, ip_version, range_start, range_end, destination_id, enabled, created_at, updated_at) VALUES (?, ?, ?, 4, ?, ?, ?, 1, ?, ?)",
      )
        .bind(crypto.randomUUID(), customerId, cidr, "0".repeat(32), "f".repeat(32), destinationId, now, now)
        .run();
    const rule = (customerId: string, destinationId: string, prefix: string) =>
      env.DB.prepare(
        "INSERT INTO routing_rules (id, customer_id, prefix, destination_id, enabled, priority, created_at, updated_at) VALUES (?, ?, ?, ?, 1, 100, ?, ?)",
      )
        .bind(crypto.randomUUID(), customerId, prefix, destinationId, now, now)
        .run();
    await ip(owner.account.id, doomed.id, "192.0.2.1/32");
    await ip(owner.account.id, kept.id, "192.0.2.2/32");
    // A row of another account naming the same id (it cannot reach it, but must not be touched).
    await ip(other.account.id, doomed.id, "192.0.2.3/32");
    await rule(owner.account.id, doomed.id, "44");
    await rule(owner.account.id, kept.id, "33");
    await rule(other.account.id, doomed.id, "22");

    expect((await owner.client.delete(`${PATH}/${doomed.id}`)).status).toBe(204);

    const ips = await env.DB.prepare(
      "SELECT customer_id, cidr, destination_id FROM whitelist_ips WHERE customer_id IN (?, ?) ORDER BY cidr",
    )
      .bind(owner.account.id, other.account.id)
      .all<DestinationRow>();
    expect(ips.results).toEqual([
      { customer_id: owner.account.id, cidr: "192.0.2.1/32", destination_id: null },
      { customer_id: owner.account.id, cidr: "192.0.2.2/32", destination_id: kept.id },
      { customer_id: other.account.id, cidr: "192.0.2.3/32", destination_id: doomed.id },
    ]);
    const rules = await env.DB.prepare("SELECT customer_id, prefix FROM routing_rules WHERE customer_id IN (?, ?) ORDER BY prefix")
      .bind(owner.account.id, other.account.id)
      .all<DestinationRow>();
    expect(rules.results).toEqual([
      { customer_id: other.account.id, prefix: "22" },
      { customer_id: owner.account.id, prefix: "33" },
    ]);
    expect(await destinationRowOf(doomed.id)).toBeNull();
  });

  it("switches kinds: a SIP destination becomes a voice agent and back", async () => {
    const owner = await createAccount();
    const made = await addDestination(owner, { host: "sbc.carrier.test", port: 5080 });

    const toAgent = await owner.client.patch(`${PATH}/${made.id}`, { kind: "voice_ai", provider: "retell" });
    expectStatus(toAgent, 200);
    expect(toAgent.body).toMatchObject({ kind: "voice_ai", provider: "retell", host: "sip.retellai.com", port: 5060, transport: "tcp" });
    expect(toAgent.body.webhook_url).toMatch(VOICE_WEBHOOK_URL);

    // Another provider brings its defaults unless the request names them.
    const toEleven = await owner.client.patch(`${PATH}/${made.id}`, { provider: "elevenlabs", port: 5061, transport: "tls" });
    expectStatus(toEleven, 200);
    expect(toEleven.body).toMatchObject({ provider: "elevenlabs", host: "sip.rtc.elevenlabs.io", port: 5061, transport: "tls" });
    expect(toEleven.body.webhook_url).toBe(toAgent.body.webhook_url);
    // Same provider again: what is stored stays.
    expect((await owner.client.patch(`${PATH}/${made.id}`, { provider: "elevenlabs" })).body).toMatchObject({ port: 5061 });

    const back = await owner.client.patch(`${PATH}/${made.id}`, { kind: "sip", host: "sbc.carrier.test" });
    expect(back.body).toMatchObject({ kind: "sip", provider: null, webhook_url: null, needs_credential: false, needs_webhook: false });
    const row = await destinationRowOf(made.id);
    expect(row).toMatchObject({ webhook_token_hash: null, webhook_token_enc: null });

    const withProvider = await owner.client.patch(`${PATH}/${made.id}`, { provider: "vapi" });
    expectStatus(withProvider, 422);
    expect(locs(withProvider.body)).toEqual(["body.provider"]);
    const noProvider = await owner.client.patch(`${PATH}/${made.id}`, { kind: "voice_ai" });
    expectStatus(noProvider, 422);
    expect(noProvider.body.detail).toEqual([
      { loc: ["body", "provider"], msg: "provider is required for voice_ai destinations", type: "missing" },
    ]);
    const rotate = await owner.client.patch(`${PATH}/${made.id}`, { rotate_webhook_token: true });
    expectStatus(rotate, 422);
    expect(locs(rotate.body)).toEqual(["body.rotate_webhook_token"]);
  });
});

describe("the default destination", () => {
  it("is at most one per account", async () => {
    const owner = await createAccount();
    const other = await createAccount();
    const theirs = await addDestination(other, { is_default: true });
    const a = await addDestination(owner, { is_default: true, label: "a" });
    const b = await addDestination(owner, { is_default: true, label: "b" });
    const defaults = async () => (await listDestinations(owner)).filter((d) => d.is_default).map((d) => d.label);
    expect(await defaults()).toEqual(["b"]);

    expect(bodyOf(await owner.client.patch(`${PATH}/${a.id}`, { is_default: true }), 200).is_default).toBe(true);
    expect(await defaults()).toEqual(["a"]);
    await addDestination(owner, { label: "c" });
    expect(await defaults()).toEqual(["a"]);

    expect(bodyOf(await owner.client.patch(`${PATH}/${a.id}`, { is_default: false }), 200).is_default).toBe(false);
    expect(await defaults()).toEqual([]);
    expect((await owner.client.patch(`${PATH}/${b.id}`, { is_default: true })).status).toBe(200);
    expect(await defaults()).toEqual(["b"]);
    // Another account's default is its own.
    expect((await listDestinations(other)).find((d) => d.id === theirs.id)?.is_default).toBe(true);
  });
});

describe("the limit", () => {
  it("answers the 51st destination with 409 and stores nothing", async () => {
    const owner = await createAccount();
    const made = await Promise.all(Array.from({ length: 50 }, (_, i) => addDestination(owner, { label: `d${i}` })));
    const refused = await owner.client.post(PATH, { host: "sbc.carrier.test" });
    expectStatus(refused, 409);
    expect(refused.body).toEqual({ detail: "Maximum number of destinations reached" });
    expect(await listDestinations(owner)).toHaveLength(50);
    // Another account is not affected; deleting one makes room.
    await addDestination(await createAccount());
    expect((await owner.client.delete(`${PATH}/${firstOf(made).id}`)).status).toBe(204);
    await addDestination(owner);
  });
});

describe("validation", () => {
  it("answers 422 naming the field for a bad transport, port, kind, provider or host", async () => {
    const owner = await createAccount();
    const cases: [Record<string, unknown>, string][] = [
      [{ host: "sbc.carrier.test", transport: "sctp" }, "body.transport"],
      [{ host: "sbc.carrier.test", port: 0 }, "body.port"],
      [{ host: "sbc.carrier.test", port: 65536 }, "body.port"],
      [{ host: "sbc.carrier.test", port: 5060.5 }, "body.port"],
      [{ host: "sbc.carrier.test", port: "5060" }, "body.port"],
      [{ host: "sbc.carrier.test", kind: "h323" }, "body.kind"],
      [{ kind: "voice_ai", provider: "acme-ai" }, "body.provider"],
      [{ kind: "voice_ai" }, "body.provider"],
      [{ host: "sbc.carrier.test", provider: "vapi" }, "body.provider"],
      [{}, "body.host"],
      [{ host: "" }, "body.host"],
      [{ host: "not a host" }, "body.host"],
      [{ host: "sip:sbc.carrier.test" }, "body.host"],
      [{ host: "sbc.carrier.test:5060" }, "body.host"],
      [{ host: "203.0.113.300" }, "body.host"],
      [{ host: "localhost" }, "body.host"],
      [{ host: "-bad.carrier.test" }, "body.host"],
      [{ host: "fe80::1%eth0" }, "body.host"],
      [{ host: "sbc.carrier.test", processing: "everything" }, "body.processing"],
      [{ host: "sbc.carrier.test", sample_rate: 0 }, "body.sample_rate"],
      [{ host: "sbc.carrier.test", sample_mode: "all" }, "body.sample_mode"],
      [{ host: "sbc.carrier.test", transfer_mode: "blind" }, "body.transfer_mode"],
      [{ host: "sbc.carrier.test", tech_prefix: "12a" }, "body.tech_prefix"],
      [{ host: "sbc.carrier.test", config: [1, 2] }, "body.config"],
      [{ host: "sbc.carrier.test", is_default: "yes" }, "body.is_default"],
    ];
    for (const [body, field] of cases) {
      const res = await owner.client.post(PATH, body);
      expectStatus(res, 422, JSON.stringify(body));
      expect(locs(res.body), JSON.stringify(body)).toEqual([field]);
    }
    expect(await listDestinations(owner)).toEqual([]);
  });

  it("validates a patch the same way and leaves the destination unchanged", async () => {
    const owner = await createAccount();
    const made = await addDestination(owner);
    for (const [body, field] of [
      [{ transport: "sctp" }, "body.transport"],
      [{ port: 70000 }, "body.port"],
      [{ kind: "h323" }, "body.kind"],
      [{ host: "bad host" }, "body.host"],
      [{ kind: "voice_ai", provider: "acme-ai" }, "body.provider"],
    ] as const) {
      const res = await owner.client.patch(`${PATH}/${made.id}`, body);
      expectStatus(res, 422, field);
      expect(locs(res.body)).toEqual([field]);
    }
    expect(await listDestinations(owner)).toEqual([made]);
    const notUuid = await owner.client.patch(`${PATH}/not-a-uuid`, { label: "x" });
    expectStatus(notUuid, 422);
    expect(locs(notUuid.body)).toEqual(["path.dest_id"]);
  });
});

describe("tenancy", () => {
  it("hides another account's destination: absent from the list, 404 on PATCH and DELETE, unchanged", async () => {
    const a = await createAccount();
    const b = await createAccount();
    const theirs = await addDestination(a, { label: "a's", is_default: true });
    await addDestination(b, { label: "b's" });

    expect((await listDestinations(b)).map((d) => d.id)).not.toContain(theirs.id);
    const patch = await b.client.patch(`${PATH}/${theirs.id}`, { label: "stolen", is_default: true });
    expectStatus(patch, 404);
    expect(patch.body).toEqual({ detail: "Destination not found" });
    const del = await b.client.delete(`${PATH}/${theirs.id}`);
    expectStatus(del, 404);
    expect(del.body).toEqual({ detail: "Destination not found" });
    expect((await b.client.delete(`${PATH}/${crypto.randomUUID()}`)).body).toEqual({ detail: "Destination not found" });

    expect(await listDestinations(a)).toEqual([theirs]);
  });
});
