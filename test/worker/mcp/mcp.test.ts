// The MCP server at /api/mcp, driven by the MCP SDK's own client with an API key or a portal
// token: the handshake, the tool list, tools reading and writing through the same services as
// the HTTP API, tool errors, cursors, tenancy, and the HTTP-level refusals.
import { LATEST_PROTOCOL_VERSION, type CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { describe, expect, it } from "vitest";
import { addTranscript, insertCall } from "../fixtures/call-record.ts";
import { bodyOf, expectStatus, ORIGIN, request } from "../fixtures/client.ts";
import { addDestination } from "../fixtures/destination.ts";
import { createAccount } from "../fixtures/factory.ts";
import { apiKeyOf, callFails, callOk, MCP_URL, mcpClient, workerFetch } from "../fixtures/mcp-client.ts";
import { v4Block } from "../fixtures/network.ts";
import { connectNode } from "../fixtures/test-call.ts";

const TOOL_NAMES = [
  "get_started",
  "list_destinations",
  "add_destination",
  "check_destination",
  "whitelist_ip",
  "add_routing_rule",
  "set_webhook",
  "test_webhook",
  "add_alert_rule",
  "list_channels",
  "place_test_call",
  "get_test_call",
  "cancel_test_call",
  "list_verified_numbers",
  "cli_coverage",
  "verify_cli",
  "get_cli_check",
  "host_number",
  "test_hosted_number",
  "list_hosted_numbers",
  "get_screening_rules",
  "list_do_not_originate",
  "list_calls",
  "get_call",
  "get_transcript",
  "report_links",
];

const initialize = {
  jsonrpc: "2.0",
  id: 1,
  method: "initialize",
  params: { protocolVersion: LATEST_PROTOCOL_VERSION, capabilities: {}, clientInfo: { name: "raw", version: "1" } },
};

/** A raw JSON-RPC POST as an MCP client sends it. */
const post = (body: unknown, headers: Record<string, string> = {}) =>
  workerFetch(MCP_URL, {
    method: "POST",
    headers: { "content-type": "application/json", accept: "application/json, text/event-stream", ...headers },
    body: JSON.stringify(body),
  });

async function keyedAccount() {
  const owner = await createAccount();
  return { owner, apiKey: await apiKeyOf(owner) };
}

describe("handshake and tool list", () => {
  it("initializes on the newest protocol revision and names the server", async () => {
    const { apiKey } = await keyedAccount();
    const client = await mcpClient({ apiKey });
    expect(client.getServerVersion()?.name).toBe("call-shield");
    expect(client.getServerCapabilities()).toEqual({ tools: { listChanged: false } });
    expect(client.getInstructions()).toContain("get_started");
    const res = await post(initialize, { "X-API-Key": apiKey });
    expect(res.status).toBe(200);
    expect(res.headers.get("mcp-session-id"), "stateless: no session").toBeNull();
    expect(((await res.json()) as any).result.protocolVersion).toBe(LATEST_PROTOCOL_VERSION);
    await client.ping();
  });

  it("lists every tool with input and output schemas, all four annotations and a title", async () => {
    const { apiKey } = await keyedAccount();
    const { tools } = await (await mcpClient({ apiKey })).listTools();
    expect(tools.map((t) => t.name)).toEqual(TOOL_NAMES);
    for (const tool of tools) {
      expect(tool.inputSchema.type, tool.name).toBe("object");
      expect(tool.outputSchema?.type, tool.name).toBe("object");
      expect(tool.description?.length, tool.name).toBeGreaterThan(40);
      const hints = tool.annotations!;
      for (const hint of ["readOnlyHint", "destructiveHint", "idempotentHint", "openWorldHint"] as const) {
        expect(typeof hints[hint], `${tool.name}.${hint}`).toBe("boolean");
      }
    }
    // Credentials travel on the HTTP request only: no tool asks for one.
    const inputs = tools.flatMap((t) => Object.keys(t.inputSchema.properties ?? {}));
    expect(inputs.filter((name) => /^(token|access_token|api_key|apikey|authorization|bearer|x-api-key)$/i.test(name))).toEqual([]);
    // Nor a secret of the configuration: a person types those on the portal (issue 29).
    expect(inputs.filter((name) => /password|secret|_key$|^auth_/i.test(name))).toEqual([]);
    const byName = Object.fromEntries(tools.map((t) => [t.name, t]));
    expect(byName.list_calls!.annotations).toMatchObject({ readOnlyHint: true, destructiveHint: false });
    expect(byName.set_webhook!.annotations).toMatchObject({ readOnlyHint: false, destructiveHint: true, idempotentHint: true });
    expect(Object.keys(byName.add_destination!.inputSchema.properties ?? {})).toEqual(expect.arrayContaining(["host", "port", "kind"]));
    expect(Object.keys(byName.set_webhook!.inputSchema.properties ?? {})).toEqual(["url"]);
    for (const name of ["add_destination", "set_webhook"]) {
      expect(byName[name]!.description).toContain("Secrets never pass through an agent's conversation");
    }
    expect(byName.get_call!.inputSchema.required).toEqual(["call_id"]);
    expect(Object.keys(byName.list_calls!.inputSchema.properties ?? {})).toEqual(expect.arrayContaining(["cursor", "limit", "status"]));
  });

  it("works with a portal access token as well as an API key", async () => {
    const owner = await createAccount();
    const started = await callOk(await mcpClient({ token: owner.token }), "get_started");
    expect(started.account.id).toBe(owner.account.id);
    expect(started.next_step.tool).toBe("add_destination");
  });
});

describe("tools over the same services as the HTTP API", () => {
  it("reads: list_destinations answers what the HTTP API made", async () => {
    const { owner, apiKey } = await keyedAccount();
    const made = await addDestination(owner, { label: "Main SBC" });
    const page = await callOk(await mcpClient({ apiKey }), "list_destinations");
    expect(page).toMatchObject({ total: 1, next_cursor: null });
    expect(page.items[0]).toMatchObject({ id: made.id, host: "sbc.carrier.test", label: "Main SBC", has_credential: false });
  });

  it("reads: get_screening_rules and list_do_not_originate answer what the HTTP API set", async () => {
    const { owner, apiKey } = await keyedAccount();
    const client = await mcpClient({ apiKey });
    const defaults = await callOk(client, "get_screening_rules");
    expect(defaults.updated_at).toBeNull();
    expect(defaults.rules.calls_per_minute).toMatchObject({ action: "flag", scope: "caller_id", threshold: 30 });
    expectStatus(
      await owner.client.put("/api/customer/screening/rules", { rules: { calls_per_minute: { action: "refuse", threshold: 20 } } }),
      200,
    );
    expectStatus(await owner.client.post("/api/customer/screening/do-not-originate", { numbers: ["+14155550100", "+442079460000"] }), 201);
    const rules = await callOk(client, "get_screening_rules");
    expect(rules.rules.calls_per_minute).toMatchObject({ action: "refuse", threshold: 20 });
    const first = await callOk(client, "list_do_not_originate", { limit: 1 });
    expect(first).toMatchObject({ total: 2, items: [expect.objectContaining({ number: expect.stringMatching(/^\+/) })] });
    const second = await callOk(client, "list_do_not_originate", { limit: 1, cursor: first.next_cursor });
    expect([first.items[0].number, second.items[0].number].sort()).toEqual(["+14155550100", "+442079460000"]);
    expect(second.next_cursor).toBeNull();
  });

  it("writes: add_destination and add_routing_rule are visible through the HTTP API", async () => {
    const { owner, apiKey } = await keyedAccount();
    const client = await mcpClient({ apiKey });
    const destination = await callOk(client, "add_destination", { host: "sbc2.carrier.test", port: 5080 });
    expect(destination).toMatchObject({ host: "sbc2.carrier.test", port: 5080, has_credential: false, ignored_secrets: [] });
    const rule = await callOk(client, "add_routing_rule", { prefix: "+4930", destination_id: destination.id });

    const listed = await owner.client.get("/api/customer/destinations");
    expectStatus(listed, 200);
    expect(listed.body.map((d: { id: string }) => d.id)).toEqual([destination.id]);
    const rules = await owner.client.get("/api/customer/routing-rules");
    expect(rules.body).toEqual([expect.objectContaining({ id: rule.id, prefix: "+4930", destination_id: destination.id, priority: 100 })]);
  });

  it("reads calls, the transcript and the report links", async () => {
    const { owner, apiKey } = await keyedAccount();
    const call = await insertCall(owner);
    await addTranscript(owner, call.id, { text: "hello this is your bank" });
    const client = await mcpClient({ apiKey });
    const detail = await callOk(client, "get_call", { call_id: call.id });
    expect(detail).toMatchObject({ id: call.id, status: "completed", ani: "+14155550100" });
    const transcript = await callOk(client, "get_transcript", { call_id: call.id });
    expect(transcript.text).toBe("hello this is your bank");
    const links = await callOk(client, "report_links", { call_id: call.id });
    expect(links).toMatchObject({ call_id: call.id, report_pdf_url: `${ORIGIN}/api/calls/${call.id}/report.pdf`, share_links: [] });
  });
});

describe("onboarding a carrier through MCP, as the plugin does", () => {
  it("adds and checks a destination, whitelists the SBC, routes, sets the webhook and an alert, and get_started follows", async () => {
    const { owner, apiKey } = await keyedAccount();
    const client = await mcpClient({ apiKey });
    expect((await callOk(client, "get_started")).steps.every((s: { done: boolean }) => !s.done)).toBe(true);
    expect(await callOk(client, "test_webhook")).toEqual({
      delivered: false,
      status_code: null,
      error: "webhook_not_configured",
      latency_ms: 0,
    });

    const destination = await callOk(client, "add_destination", { host: "sbc.onboard.test", is_default: true, label: "Main SBC" });
    const node = await connectNode(`mcp-options-${crypto.randomUUID()}`, (c) =>
      c.type === "options" ? { ok: true, result: { code: 200, rtt_ms: 17, error: null } } : { ok: true, result: {} },
    );
    try {
      const checked = await callOk(client, "check_destination", { destination_id: destination.id });
      expect(checked).toMatchObject({ id: destination.id, monitor_status: "up", monitor_last_code: 200, monitor_rtt_ms: 17 });
      expect(node.seen).toContainEqual(expect.objectContaining({ type: "options", host: "sbc.onboard.test" }));
    } finally {
      node.close();
    }

    const { cidr } = v4Block();
    const entry = await callOk(client, "whitelist_ip", { cidr, label: "SBC Frankfurt" });
    expect(entry).toMatchObject({ cidr, admits_calls: true });
    await callOk(client, "add_routing_rule", { prefix: "+4930", destination_id: destination.id });

    // The webhook's signing secret is typed by a person on the portal page the tool links to.
    const hook = await callOk(client, "set_webhook", { url: "https://hooks.carrier.example/shield" });
    expect(hook).toMatchObject({ url: null, secret_set: false, url_saved: false });
    const page = new URL(hook.secret_url);
    expect(page.pathname).toBe("/app/alerts");
    const secret = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw";
    await owner.client.put("/api/customer/webhook", { url: page.searchParams.get("webhook_url"), secret });

    expect(await callOk(client, "list_channels")).toEqual({ items: [], total: 0, next_cursor: null });
    const channel = await owner.client.post("/api/customer/alert-channels", {
      kind: "slack",
      url: "https://hooks.slack.com/services/T1/B2/tok",
    });
    expectStatus(channel, 201);
    expect((await callOk(client, "list_channels")).items.map((c: { id: string }) => c.id)).toEqual([channel.body.id]);
    const rule = await callOk(client, "add_alert_rule", { name: "NOC", min_probability: 80, channel_ids: [channel.body.id] });

    // Everything is visible through the HTTP API, and the checklist is done.
    expect(bodyOf(await owner.client.get("/api/customer/ips"), 200).map((e: { cidr: string }) => e.cidr)).toEqual([cidr]);
    expect((await owner.client.get("/api/customer/webhook")).body).toEqual({
      url: "https://hooks.carrier.example/shield",
      secret_set: true,
    });
    expect((await owner.client.get("/api/customer/alert-rules")).body).toEqual([
      expect.objectContaining({ id: rule.id, min_probability: 80 }),
    ]);
    const started = await callOk(client, "get_started");
    expect(started.steps.filter((s: { done: boolean }) => !s.done)).toEqual([]);
    expect(started.next_step).toBeNull();
  });
});

describe("secrets never pass through an agent (issue 29)", () => {
  it("add_destination stores no credential or secret it is sent, names them as ignored and links the trunk page", async () => {
    const { owner, apiKey } = await keyedAccount();
    const client = await mcpClient({ apiKey });
    const result = (await client.callTool({
      name: "add_destination",
      arguments: {
        host: "sbc3.carrier.test",
        auth_username: "carrier",
        auth_password: "s3cret-digest",
        webhook_secret: "a-webhook-secret-of-some-length",
        provider_api_key: "sk-provider-key",
      },
    })) as CallToolResult;
    expect(result.isError).toBeFalsy();
    const destination = result.structuredContent as any;
    expect(destination).toMatchObject({
      host: "sbc3.carrier.test",
      has_credential: false,
      has_webhook_secret: false,
      has_provider_key: false,
      secret_url: expect.stringMatching(new RegExp(`^${ORIGIN}/app/trunk\\?destination=[0-9a-f-]{36}$`)),
      ignored_secrets: ["auth_username", "auth_password", "webhook_secret", "provider_api_key"],
    });
    const text = result.content.map((c) => (c.type === "text" ? c.text : "")).join("\n");
    expect(destination.secret_url).toBe(`${ORIGIN}/app/trunk?destination=${destination.id}`);
    expect(text).toContain(destination.secret_url);
    expect(text).toContain("Not stored: auth_username, auth_password, webhook_secret, provider_api_key");
    expect(text).not.toMatch(/s3cret-digest|sk-provider-key|a-webhook-secret/);
    const stored = bodyOf(await owner.client.get("/api/customer/destinations"), 200).find((d: { id: string }) => d.id === destination.id);
    expect(stored).toMatchObject({ has_credential: false, has_webhook_secret: false, has_provider_key: false });
  });

  it("set_webhook takes no secret: without one it stores nothing and links the alerts page with the URL filled in", async () => {
    const { owner, apiKey } = await keyedAccount();
    const client = await mcpClient({ apiKey });
    const url = "https://hooks.carrier.example/shield";
    const pending = await callOk(client, "set_webhook", { url, secret: "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw" });
    expect(pending).toEqual({
      url: null,
      secret_set: false,
      url_saved: false,
      secret_url: `${ORIGIN}/app/alerts?webhook_url=${encodeURIComponent(url)}`,
      ignored_secrets: ["secret"],
    });
    expect((await owner.client.get("/api/customer/webhook")).body).toEqual({ url: null, secret_set: false });
    // A URL PUT would refuse is refused now, before a person is sent to the page with it.
    expect(await callFails(client, "set_webhook", { url: "http://hooks.carrier.example/x" })).toMatch(/set_webhook refused \(422\): url/);

    // The person sets URL and secret on the page; then the agent may move the URL, the secret staying.
    await owner.client.put("/api/customer/webhook", { url, secret: "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw" });
    const moved = await callOk(client, "set_webhook", { url: "https://hooks2.carrier.example/shield" });
    expect(moved).toMatchObject({ url: "https://hooks2.carrier.example/shield", secret_set: true, url_saved: true, ignored_secrets: [] });
    expect(moved.secret_url).toBe(`${ORIGIN}/app/alerts`);
    const cleared = await callOk(client, "set_webhook", { url: "https://hooks2.carrier.example/shield", secret: null });
    expect(cleared).toMatchObject({ secret_set: true, ignored_secrets: [] });
    expect((await owner.client.get("/api/customer/webhook")).body).toEqual({
      url: "https://hooks2.carrier.example/shield",
      secret_set: true,
    });
  });
});

describe("tool errors", () => {
  it("answers a service's refusal as an isError result with what to do", async () => {
    const { apiKey } = await keyedAccount();
    const client = await mcpClient({ apiKey });
    const missing = await callFails(client, "get_call", { call_id: crypto.randomUUID() });
    expect(missing).toMatch(/get_call refused \(404\): Call not found/i);
    expect(missing).toContain("list_calls");
    const rule = await callFails(client, "add_routing_rule", { prefix: "+49", destination_id: crypto.randomUUID() });
    expect(rule).toMatch(/\(4\d\d\)/);
    const noTranscript = await callFails(client, "get_transcript", { call_id: (await insertCall((await keyedAccount()).owner)).id });
    expect(noTranscript).toContain("404");
  });

  it("answers arguments that break the input schema as an isError result naming the argument", async () => {
    const { apiKey } = await keyedAccount();
    const text = await callFails(await mcpClient({ apiKey }), "add_routing_rule", { prefix: "abc", destination_id: "x" });
    expect(text).toMatch(/prefix/);
    expect(text).toMatch(/destination_id/);
  });
});

describe("cursors", () => {
  it("pages with an opaque next_cursor until it is null", async () => {
    const { owner, apiKey } = await keyedAccount();
    for (let i = 0; i < 3; i++) await insertCall(owner);
    const client = await mcpClient({ apiKey });
    const first = await callOk(client, "list_calls", { limit: 2, status: "completed" });
    expect(first.items).toHaveLength(2);
    expect(first.total).toBe(3);
    expect(first.next_cursor).toEqual(expect.any(String));
    expect(first.next_cursor).not.toMatch(/offset|^\d+$/);
    const second = await callOk(client, "list_calls", { limit: 2, status: "completed", cursor: first.next_cursor });
    expect(second.items).toHaveLength(1);
    expect(second.next_cursor).toBeNull();
    const ids = [...first.items, ...second.items].map((c: { id: string }) => c.id);
    expect(new Set(ids).size).toBe(3);
  });

  it("refuses a cursor from another query, or one it did not issue, as a tool error", async () => {
    const { owner, apiKey } = await keyedAccount();
    for (let i = 0; i < 3; i++) await insertCall(owner);
    const client = await mcpClient({ apiKey });
    const { next_cursor } = await callOk(client, "list_calls", { limit: 1 });
    expect(await callFails(client, "list_calls", { limit: 1, status: "failed", cursor: next_cursor })).toMatch(/cursor.*same filters/);
    expect(await callFails(client, "list_calls", { cursor: "not-a-cursor" })).toMatch(/cursor/);
  });

  it("pages lists the service answers whole the same way", async () => {
    const { owner, apiKey } = await keyedAccount();
    for (let i = 0; i < 3; i++) await addDestination(owner, { host: `sbc${i}.carrier.test` });
    const client = await mcpClient({ apiKey });
    const first = await callOk(client, "list_destinations", { limit: 2 });
    const second = await callOk(client, "list_destinations", { limit: 2, cursor: first.next_cursor });
    expect([first.items.length, second.items.length, second.next_cursor]).toEqual([2, 1, null]);
  });
});

describe("tenancy", () => {
  it("never shows or changes another account's records", async () => {
    const a = await keyedAccount();
    const b = await keyedAccount();
    const destination = await addDestination(a.owner);
    const call = await insertCall(a.owner);
    const asB = await mcpClient({ apiKey: b.apiKey });
    expect((await callOk(asB, "list_destinations")).items).toEqual([]);
    expect((await callOk(asB, "list_calls")).items).toEqual([]);
    expect(await callFails(asB, "get_call", { call_id: call.id })).toContain("404");
    expect(await callFails(asB, "get_transcript", { call_id: call.id })).toContain("404");
    expect(await callFails(asB, "report_links", { call_id: call.id })).toContain("404");
    expect(await callFails(asB, "check_destination", { destination_id: destination.id })).toContain("404");
    expect(await callFails(asB, "add_routing_rule", { prefix: "1", destination_id: destination.id })).toMatch(/\(4\d\d\)/);
    const rules = await a.owner.client.get("/api/customer/routing-rules");
    expect(rules.body).toEqual([]);
  });
});

describe("HTTP refusals", () => {
  it("answers 401 with a WWW-Authenticate challenge naming the resource metadata and the scopes", async () => {
    const none = await post({ jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: "list_calls", arguments: {} } });
    expect(none.status).toBe(401);
    const challenge = none.headers.get("WWW-Authenticate")!;
    expect(challenge).toMatch(/^Bearer /);
    expect(challenge).toContain(`resource_metadata="${ORIGIN}/.well-known/oauth-protected-resource/api/mcp"`);
    expect(challenge).toMatch(/scope="[^"]*calls:read[^"]*"/);
    expect(challenge).not.toContain("error=");

    const wrong = await post(initialize, { "X-API-Key": "sk_not_a_key" });
    expect(wrong.status).toBe(401);
    expect(wrong.headers.get("WWW-Authenticate")).toContain('error="invalid_token"');
    const expired = await post(initialize, { Authorization: "Bearer not.a.token" });
    expect(expired.status).toBe(401);
  });

  it("refuses a browser page of a foreign origin with 403 (DNS-rebinding protection)", async () => {
    const { apiKey } = await keyedAccount();
    const foreign = await post(initialize, { "X-API-Key": apiKey, Origin: "https://attacker.example" });
    expect(foreign.status).toBe(403);
    expect(await foreign.json()).toEqual({ detail: "Origin not allowed" });
    for (const method of ["GET", "DELETE"]) {
      expect((await workerFetch(MCP_URL, { method, headers: { Origin: "http://127.0.0.1:8080" } })).status, method).toBe(403);
    }
    const own = await post(initialize, { "X-API-Key": apiKey, Origin: ORIGIN });
    expect(own.status).toBe(200);
  });

  it("answers an unsupported MCP-Protocol-Version with 400 and accepts a supported one", async () => {
    const { apiKey } = await keyedAccount();
    const list = { jsonrpc: "2.0", id: 2, method: "tools/list" };
    const bad = await post(list, { "X-API-Key": apiKey, "MCP-Protocol-Version": "1999-01-01" });
    expect(bad.status).toBe(400);
    expect(((await bad.json()) as any).detail).toContain("1999-01-01");
    const good = await post(list, { "X-API-Key": apiKey, "MCP-Protocol-Version": LATEST_PROTOCOL_VERSION });
    expect(good.status).toBe(200);
    expect(((await good.json()) as any).result.tools).toHaveLength(TOOL_NAMES.length);
  });

  it("describes itself on GET, keeps no event stream, and answers DELETE with 204", async () => {
    const described = await request("GET", "/api/mcp");
    expectStatus(described, 200);
    expect(described.body).toMatchObject({
      protocol: "mcp",
      protocolVersion: LATEST_PROTOCOL_VERSION,
      transport: "streamable-http",
      endpoint: MCP_URL,
      auth: { resource_metadata: `${ORIGIN}/.well-known/oauth-protected-resource/api/mcp` },
      openapi: `${ORIGIN}/api/openapi.json`,
      docs: `${ORIGIN}/api/docs`,
    });
    expect(described.body.tools).toEqual(TOOL_NAMES.map((name) => expect.objectContaining({ name })));
    const stream = await workerFetch(MCP_URL, { headers: { Accept: "text/event-stream" } });
    expect(stream.status).toBe(405);
    expect((await request("DELETE", "/api/mcp")).status).toBe(204);
  });
});
