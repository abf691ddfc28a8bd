// The agent plugin's path on /api/mcp (issue 31, "The agent plugin's path, as it expects it"):
// the handshake, the tool list and get_started without a credential, every other tool 401 with
// the challenge that starts OAuth; strict arguments and the skills' names for them (aliases);
// report_links' short-lived links to the recording, capture and SIP ladder; test calls of up to
// 600 seconds. Driven by the MCP SDK's client where a client would, raw JSON-RPC where the HTTP
// answer itself is what is checked.
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { LATEST_PROTOCOL_VERSION } from "@modelcontextprotocol/sdk/types.js";
import { CfWorkerJsonSchemaValidator } from "@modelcontextprotocol/sdk/validation/cfworker";
import { env } from "cloudflare:test";
import { SignJWT } from "jose";
import { describe, expect, it } from "vitest";
import { addSipMessages, insertCall } from "../fixtures/call-record.ts";
import { bodyOf, expectStatus, issuesOf, ORIGIN } from "../fixtures/client.ts";
import { addDestination } from "../fixtures/destination.ts";
import { createAccount, testServices, type Session } from "../fixtures/factory.ts";
import { apiKeyOf, callFails, callOk, connectorToken, MCP_URL, mcpClient, workerFetch } from "../fixtures/mcp-client.ts";
import { v4Block } from "../fixtures/network.ts";
import { accountWithDefaultDestination, connectNode, placeTestCall } from "../fixtures/test-call.ts";

const CHALLENGE =
  `Bearer scope="calls:read config:write test_calls", ` + `resource_metadata="${ORIGIN}/.well-known/oauth-protected-resource/api/mcp"`;

const rpc = (id: number, method: string, params?: Record<string, unknown>) => ({
  jsonrpc: "2.0",
  id,
  method,
  ...(params ? { params } : {}),
});
const initialize = rpc(1, "initialize", {
  protocolVersion: LATEST_PROTOCOL_VERSION,
  capabilities: {},
  clientInfo: { name: "plugin", version: "1" },
});
const toolCall = (id: number, name: string, args: Record<string, unknown> = {}) => rpc(id, "tools/call", { name, arguments: args });

/** A raw JSON-RPC POST as an MCP client sends it; no credential unless `headers` carry one. */
const post = (body: unknown, headers: Record<string, string> = {}) =>
  workerFetch(MCP_URL, {
    method: "POST",
    headers: { "content-type": "application/json", accept: "application/json, text/event-stream", ...headers },
    body: typeof body === "string" ? body : JSON.stringify(body),
  });

/** The SDK's client connected without any credential, as the plugin starts. */
async function anonymousClient(): Promise<Client> {
  const client = new Client({ name: "plugin", version: "1.0.0" }, { jsonSchemaValidator: new CfWorkerJsonSchemaValidator() });
  await client.connect(new StreamableHTTPClientTransport(new URL(MCP_URL), { fetch: workerFetch }));
  return client;
}

const toolAudits = async () =>
  (await env.DB.prepare("SELECT COUNT(*) AS n FROM audit_log WHERE action = 'mcp.tool_call'").first<{ n: number }>())!.n;

async function expectChallenge(res: Response, what: string) {
  expect(res.status, what).toBe(401);
  expect(res.headers.get("WWW-Authenticate"), what).toBe(CHALLENGE);
  expect(await res.json(), what).toEqual({ detail: "Not authenticated" });
}

describe("without a credential", () => {
  it("initializes, pings, lists every tool and answers get_started with the general onboarding", async () => {
    const audits = await toolAudits();
    const client = await anonymousClient();
    expect(client.getServerVersion()?.name).toBe("call-shield");
    expect(client.getInstructions()).toContain("needs no sign-in");
    await client.ping();
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name)).toEqual(expect.arrayContaining(["get_started", "list_calls", "place_test_call", "report_links"]));

    const started = await callOk(client, "get_started");
    const config = testServices().config;
    expect(started).toMatchObject({
      signed_in: false,
      account: null,
      ingress: { ingress_host: config.INGRESS_HOST, ingress_port: config.INGRESS_PORT, transports: ["udp", "tcp"] },
      next_step: { step: "Sign in", done: false, tool: null },
      sign_in: {
        mcp_endpoint: MCP_URL,
        resource_metadata: `${ORIGIN}/.well-known/oauth-protected-resource/api/mcp`,
        authorization_server: `${ORIGIN}/.well-known/oauth-authorization-server`,
        sign_up_url: `${ORIGIN}/app/sign-up`,
        sign_in_url: `${ORIGIN}/app/sign-in`,
        scopes: ["calls:read", "config:write", "test_calls"],
      },
    });
    expect(started.service).toMatch(/screens a carrier's SIP calls for fraud/);
    expect(started.sign_in.needed_for).toMatch(/Every tool but get_started/);
    // The prices are the catalogue's, as GET /api/plans and /api/ai-modes publish them.
    const plans = bodyOf(await (await createAccount()).client.get("/api/plans"), 200);
    const tiers = bodyOf(await (await createAccount()).client.get("/api/ai-modes"), 200);
    expect(plans.length).toBeGreaterThan(0);
    expect(started.pricing).toMatchObject({ currency: "USD", plans, ai_tiers: tiers, new_account: { plan: "payg" } });
    expect(started.steps.map((s: { tool: string | null }) => s.tool)).toEqual([
      null,
      "add_destination",
      "check_destination",
      "whitelist_ip",
      "add_routing_rule",
      "set_webhook",
      "add_alert_rule",
    ]);
    // No account, so nothing to audit.
    expect(await toolAudits()).toBe(audits);
  });

  it("answers the raw methods the plugin sends before signing in", async () => {
    const init = await post(initialize);
    expect(init.status).toBe(200);
    expect(((await init.json()) as any).result.serverInfo.name).toBe("call-shield");
    expect((await post({ jsonrpc: "2.0", method: "notifications/initialized" })).status).toBe(202);
    expect(((await (await post(rpc(2, "ping"))).json()) as any).result).toEqual({});
    const list = await post(rpc(3, "tools/list"));
    expect(list.status).toBe(200);
    expect(((await list.json()) as any).result.tools.length).toBeGreaterThan(10);
    const started = await post(toolCall(4, "get_started"));
    expect(started.status).toBe(200);
    expect(((await started.json()) as any).result.structuredContent.signed_in).toBe(false);
    // A batch of messages that all need no credential is answered too.
    const batch = await post([rpc(5, "ping"), toolCall(6, "get_started")]);
    expect(batch.status).toBe(200);
  });

  it("answers every other tool 401 with the challenge that starts the client's OAuth flow, running nothing", async () => {
    const owner = await createAccount();
    const destination = await addDestination(owner);
    for (const [name, args] of [
      ["list_calls", {}],
      ["list_destinations", {}],
      ["add_destination", { host: "sbc.anonymous.test" }],
      ["check_destination", { destination_id: destination.id }],
      ["place_test_call", { number: "+14155550123" }],
      ["no_such_tool", {}],
    ] as const) {
      await expectChallenge(await post(toolCall(1, name, args)), name);
    }
    // A batch mixing get_started with a tool that needs sign-in is refused whole.
    await expectChallenge(await post([toolCall(1, "get_started"), toolCall(2, "list_calls")]), "mixed batch");
    // Methods outside the handshake, an empty batch and a body that is not JSON learn nothing either.
    await expectChallenge(await post(rpc(1, "resources/list")), "resources/list");
    await expectChallenge(await post([]), "empty batch");
    await expectChallenge(await post("{not json"), "not JSON");
    expect(bodyOf(await owner.client.get("/api/customer/destinations"), 200).map((d: { id: string }) => d.id)).toEqual([destination.id]);
  });

  it("the SDK's client gets the 401 from a tool call, not from the handshake", async () => {
    const client = await anonymousClient();
    // Without an OAuth provider it stops at the 401; with one (mcp-oauth.test.ts) the 401 starts the flow.
    await expect(client.callTool({ name: "list_calls", arguments: {} })).rejects.toMatchObject({ code: 401 });
  });

  it("keeps the Origin and protocol-version checks first, and an invalid credential 401 invalid_token even for initialize", async () => {
    const foreign = await post(initialize, { Origin: "https://attacker.example" });
    expect(foreign.status).toBe(403);
    expect(await foreign.json()).toEqual({ detail: "Origin not allowed" });
    const version = await post(rpc(1, "tools/list"), { "MCP-Protocol-Version": "1999-01-01" });
    expect(version.status).toBe(400);
    const wrong: Record<string, string>[] = [{ "X-API-Key": "sk_not_a_key" }, { Authorization: "Bearer not.a.token" }];
    for (const headers of wrong) {
      for (const body of [initialize, toolCall(1, "get_started")]) {
        const res = await post(body, headers);
        expect(res.status).toBe(401);
        expect(res.headers.get("WWW-Authenticate")).toContain('error="invalid_token"');
      }
    }
  });

  it("describes the anonymous path on GET", async () => {
    const described = (await (await workerFetch(MCP_URL)).json()) as any;
    expect(described.auth.without_credential).toEqual({
      methods: ["initialize", "notifications/initialized", "ping", "tools/list"],
      tools: ["get_started"],
    });
    const byName = Object.fromEntries(described.tools.map((t: { name: string }) => [t.name, t]));
    expect(byName.get_started.needs_sign_in).toBe(false);
    expect(byName.list_calls.needs_sign_in).toBe(true);
    expect(byName.place_test_call.argument_aliases).toEqual({ destination: "destination_id" });
  });
});

describe("with a credential, get_started answers the account", () => {
  it("answers the account's checklist, signed in, without the general parts", async () => {
    const owner = await createAccount();
    const started = await callOk(await mcpClient({ apiKey: await apiKeyOf(owner) }), "get_started");
    expect(started).toMatchObject({ signed_in: true, account: { id: owner.account.id }, next_step: { tool: "add_destination" } });
    expect(started.pricing).toBeUndefined();
    expect(started.sign_in).toBeUndefined();
  });
});

/** An account with its default destination and a second one, and an agent token with every scope. */
async function twoDestinations() {
  const { owner, destination } = await accountWithDefaultDestination();
  const second = await addDestination(owner, { host: "second.sbc.test", label: "Second" });
  const { token } = await connectorToken(owner, ["calls:read", "config:write", "test_calls"]);
  return { owner, first: destination, second, client: await mcpClient({ token }) };
}

const testCallRows = async (customerId: string) =>
  (await env.DB.prepare("SELECT * FROM test_calls WHERE customer_id = ?").bind(customerId).all<Record<string, any>>()).results;

describe("strict arguments", () => {
  it("refuses an unknown argument naming the ones the tool takes, and creates nothing", async () => {
    const { owner, client } = await twoDestinations();
    const text = await callFails(client, "place_test_call", { number: "+14155550123", destinaton: "x" });
    expect(text).toContain("place_test_call refused (422): destinaton: unknown argument");
    expect(text).toContain(
      "place_test_call takes number, destination_id (or destination), caller_id, seconds, speech, agent_destination_id, instruction",
    );
    expect(await testCallRows(owner.account.id)).toEqual([]);

    const several = await callFails(client, "get_call", { call_id: crypto.randomUUID(), verbose: true, format: "json" });
    expect(several).toContain("verbose, format: unknown arguments: get_call takes call_id");
    expect(await callFails(client, "test_webhook", { url: "https://x.example" })).toContain("test_webhook takes no arguments");
    const secretsAndMore = await callFails(client, "add_destination", { host: "sbc.extra.test", auth_password: "pw", colour: "red" });
    expect(secretsAndMore).toContain("colour: unknown argument");
    expect(secretsAndMore).not.toContain("auth_password");
    expect(bodyOf(await owner.client.get("/api/customer/destinations"), 200)).toHaveLength(2);
  });

  it("lists the aliases as optional arguments and no others (additionalProperties false)", async () => {
    const { client } = await twoDestinations();
    const byName = Object.fromEntries((await client.listTools()).tools.map((t) => [t.name, t.inputSchema as any]));
    const place = byName.place_test_call;
    expect(place.additionalProperties).toBe(false);
    expect(place.required).toEqual(["number"]);
    expect(place.properties.destination.type).toBe("string");
    expect(place.properties.destination.description).toContain("destination_id");
    expect(byName.whitelist_ip.properties.ip.description).toContain("cidr");
    expect(byName.whitelist_ip.required ?? []).not.toContain("cidr");
    expect(byName.whitelist_ip.properties.cidr.description).toContain("Required, as cidr or ip");
    expect(Object.keys(byName.get_test_call.properties).sort()).toEqual(["id", "test_call_id"]);
    expect(Object.keys(byName.check_destination.properties).sort()).toEqual(["destination", "destination_id"]);
    expect(byName.add_routing_rule.properties.destination).toBeDefined();
    expect(byName.get_call.required).toEqual(["call_id"]);
    for (const [name, schema] of Object.entries(byName)) expect(schema.additionalProperties, name).toBe(false);
  });
});

describe("the skills' names for arguments (aliases)", () => {
  it("place_test_call with destination goes to the named destination, not the default", async () => {
    const { owner, first, second, client } = await twoDestinations();
    const placed = await callOk(client, "place_test_call", { number: "+14155550123", destination: second.id });
    expect(placed).toMatchObject({ status: "awaiting_confirm", destination_id: second.id });
    expect(placed.destination_id).not.toBe(first.id);
    const stored = bodyOf(await owner.client.get(`/api/customer/test-calls/${placed.id}`), 200);
    expect(stored.destination_id).toBe(second.id);

    // Both names agreeing is one argument; differing is refused, nothing created.
    const same = await callOk(client, "place_test_call", { number: "+14155550124", destination: second.id, destination_id: second.id });
    expect(same.destination_id).toBe(second.id);
    const differ = await callFails(client, "place_test_call", { number: "+14155550125", destination: second.id, destination_id: first.id });
    expect(differ).toContain("destination and destination_id are the same argument and were given different values");
    expect((await testCallRows(owner.account.id)).map((r) => r.number).sort()).toEqual(["+14155550123", "+14155550124"]);

    // get_test_call and cancel_test_call take the test call's id as id.
    expect((await callOk(client, "get_test_call", { id: placed.id })).id).toBe(placed.id);
    expect((await callOk(client, "cancel_test_call", { id: placed.id })).status).toBe("cancelled");
    expect(await callFails(client, "get_test_call", {})).toMatch(/test_call_id: .*\(give test_call_id or id\)/);
  });

  it("whitelist_ip takes ip and destination; add_routing_rule and check_destination take destination", async () => {
    const { owner, second, client } = await twoDestinations();
    const { cidr } = v4Block();
    const entry = await callOk(client, "whitelist_ip", { ip: cidr, destination: second.id, label: "SBC" });
    expect(entry).toMatchObject({ cidr, destination_id: second.id });
    expect(bodyOf(await owner.client.get("/api/customer/ips"), 200)).toEqual([
      expect.objectContaining({ cidr, destination_id: second.id }),
    ]);
    expect(await callFails(client, "whitelist_ip", { label: "none" })).toMatch(/cidr: .*\(give cidr or ip\)/);

    const rule = await callOk(client, "add_routing_rule", { prefix: "+4930", destination: second.id });
    expect(rule.destination_id).toBe(second.id);

    const node = await connectNode(`mcp-alias-${crypto.randomUUID()}`, (c) =>
      c.type === "options" ? { ok: true, result: { code: 200, rtt_ms: 9, error: null } } : { ok: true, result: {} },
    );
    try {
      const checked = await callOk(client, "check_destination", { destination: second.id });
      expect(checked).toMatchObject({ id: second.id, monitor_status: "up" });
      expect(node.seen).toContainEqual(expect.objectContaining({ type: "options", host: "second.sbc.test" }));
    } finally {
      node.close();
    }
  });

  it("list_calls filters by destination", async () => {
    const { owner, second, client } = await twoDestinations();
    const mine = await insertCall(owner, { routed_destination_id: second.id });
    await insertCall(owner);
    const page = await callOk(client, "list_calls", { destination: second.id });
    expect(page.items.map((c: { id: string }) => c.id)).toEqual([mine.id]);
  });
});

const WAV = new Uint8Array([...new TextEncoder().encode("RIFF"), 36, 0, 0, 0, ...new TextEncoder().encode("WAVEfmt "), 1, 2, 3, 4]);
const PCAP = new Uint8Array([0xd4, 0xc3, 0xb2, 0xa1, 2, 0, 4, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff, 0, 0, 1, 0, 0, 0]);

/** A call of `owner` with its recording, one capture and a two-message SIP ladder stored. */
async function callWithFiles(owner: Session) {
  const id = crypto.randomUUID();
  const prefix = `calls/${owner.account.id}/${id}`;
  await env.MEDIA.put(`${prefix}/recording.wav`, WAV, { httpMetadata: { contentType: "audio/wav" } });
  await env.MEDIA.put(`${prefix}/caller.pcap`, PCAP, { httpMetadata: { contentType: "application/vnd.tcpdump.pcap" } });
  const call = await insertCall(owner, {
    id,
    recording_available: true,
    recording_wav_path: `${prefix}/recording.wav`,
    recording_pcap_paths: [`${prefix}/caller.pcap`],
  });
  await addSipMessages(owner, call.id, [
    {
      time_stamp: call.started_at,
      direction: "in",
      method: "INVITE",
      from_ip: "203.0.113.10:5060",
      to_ip: "198.51.100.1:5060",
      first_line: "INVITE sip:14155550123@198.51.100.1 SIP/2.0",
    },
    {
      time_stamp: call.started_at,
      direction: "out",
      method: "INVITE",
      status: "200",
      from_ip: "198.51.100.1:5060",
      to_ip: "203.0.113.10:5060",
      first_line: "SIP/2.0 200 OK",
    },
  ]);
  return call;
}

/** A GET with no header at all, as a person's browser opens a link. */
async function open(url: string) {
  const res = await workerFetch(url);
  return { status: res.status, type: res.headers.get("content-type"), bytes: new Uint8Array(await res.arrayBuffer()) };
}

const tokenOf = (url: string) => new URL(url).searchParams.get("t")!;

describe("report_links: the recording, the capture and the SIP ladder as short-lived links", () => {
  it("gives links that open without any header", async () => {
    const owner = await createAccount();
    const call = await callWithFiles(owner);
    const links = await callOk(await mcpClient({ apiKey: await apiKeyOf(owner) }), "report_links", { call_id: call.id });
    expect(links).toMatchObject({ call_id: call.id, links_expire_in: testServices().config.RECORDING_TOKEN_TTL_SEC });
    for (const [field, path] of [
      ["recording_url", "recording"],
      ["pcap_url", "pcap"],
      ["sip_ladder_url", "sip-ladder"],
    ]) {
      const url = new URL(links[field!]);
      expect(`${url.origin}${url.pathname}`, field).toBe(`${ORIGIN}/api/calls/${call.id}/${path}`);
    }

    const recording = await open(links.recording_url);
    expect([recording.status, recording.type]).toEqual([200, "audio/wav"]);
    expect(recording.bytes).toEqual(WAV);
    const pcap = await open(links.pcap_url);
    expect([pcap.status, pcap.type]).toEqual([200, "application/vnd.tcpdump.pcap"]);
    expect(pcap.bytes).toEqual(PCAP);
    const ladder = await open(links.sip_ladder_url);
    expect([ladder.status, ladder.type]).toEqual([200, "text/plain; charset=utf-8"]);
    const text = new TextDecoder().decode(ladder.bytes);
    expect(text).toContain("INVITE sip:14155550123@198.51.100.1 SIP/2.0");
    expect(text).toContain("SIP/2.0 200 OK");
    // The same text as the SIP log's, with the account's credential.
    expect(text).toBe(bodyOf(await owner.client.get(`/api/calls/${call.id}/sip-log`), 200).text);
  });

  it("answers null where the call has no such file", async () => {
    const owner = await createAccount();
    const call = await insertCall(owner);
    const links = await callOk(await mcpClient({ apiKey: await apiKeyOf(owner) }), "report_links", { call_id: call.id });
    expect(links).toMatchObject({ recording_url: null, pcap_url: null, sip_ladder_url: null });
    expect((await owner.client.get(`/api/calls/${call.id}/sip-ladder`)).status).toBe(404);
  });

  it("refuses a tampered, expired, another file's or another call's token (401)", async () => {
    const owner = await createAccount();
    const a = await callWithFiles(owner);
    const b = await callWithFiles(owner);
    const client = await mcpClient({ apiKey: await apiKeyOf(owner) });
    const links = await callOk(client, "report_links", { call_id: a.id });
    const pcapToken = tokenOf(links.pcap_url);

    const [header, payload, signature] = pcapToken.split(".") as [string, string, string];
    const flipped = `${signature.slice(0, -2)}${signature.at(-2) === "A" ? "B" : "A"}${signature.at(-1)}`;
    expect((await open(`${ORIGIN}/api/calls/${a.id}/pcap?t=${header}.${payload}.${flipped}`)).status).toBe(401);
    // One file's token opens no other file of the call, nor the same file of another call.
    expect((await open(`${ORIGIN}/api/calls/${a.id}/sip-ladder?t=${pcapToken}`)).status).toBe(401);
    expect((await open(`${ORIGIN}/api/calls/${a.id}/recording?t=${pcapToken}`)).status).toBe(401);
    expect((await open(`${ORIGIN}/api/calls/${a.id}/pcap?t=${tokenOf(links.recording_url)}`)).status).toBe(401);
    expect((await open(`${ORIGIN}/api/calls/${b.id}/pcap?t=${pcapToken}`)).status).toBe(401);
    // Nor anything else of the API.
    expect((await workerFetch(`${ORIGIN}/api/calls/${a.id}`, { headers: { Authorization: `Bearer ${pcapToken}` } })).status).toBe(401);

    const claims = JSON.parse(atob(payload.replace(/-/g, "+").replace(/_/g, "/")));
    const expired = await new SignJWT({ cid: owner.account.id, call: a.id })
      .setProtectedHeader({ alg: "HS256", typ: "JWT" })
      .setAudience("media:sip-ladder")
      .setSubject(claims.sub)
      .setIssuedAt(Math.floor(Date.now() / 1000) - 600)
      .setExpirationTime(Math.floor(Date.now() / 1000) - 300)
      .sign(new TextEncoder().encode(env.JWT_SECRET));
    const refused = await workerFetch(`${ORIGIN}/api/calls/${a.id}/sip-ladder?t=${expired}`);
    expect(refused.status).toBe(401);
    expect(await refused.json()).toEqual({ detail: "Invalid or expired link token" });
  });

  it("answers another account's call 404", async () => {
    const owner = await createAccount();
    const call = await callWithFiles(owner);
    const stranger = await createAccount();
    expect(await callFails(await mcpClient({ apiKey: await apiKeyOf(stranger) }), "report_links", { call_id: call.id })).toContain(
      "report_links refused (404)",
    );
    for (const path of ["pcap", "sip-ladder", "recording"]) {
      expect((await stranger.client.get(`/api/calls/${call.id}/${path}` as never)).status, path).toBe(404);
    }
  });
});

describe("test calls of 5 to 600 seconds", () => {
  it("accepts 600 and refuses 601 naming seconds, over the API and through MCP", async () => {
    const { owner, client } = await twoDestinations();
    const placed = await callOk(client, "place_test_call", { number: "+14155550126", seconds: 600 });
    expect(placed.seconds).toBe(600);
    const refused = await callFails(client, "place_test_call", { number: "+14155550127", seconds: 601 });
    expect(refused).toMatch(/seconds/);
    expect(refused).toMatch(/600/);

    const viaApi = await owner.client.post("/api/customer/test-calls", { number: "+14155550128", seconds: 601 });
    expectStatus(viaApi, 422);
    expect(issuesOf(viaApi.body)[0]?.loc).toEqual(["body", "seconds"]);
    expect((await placeTestCall(owner, { number: "+14155550129", seconds: 600 })).seconds).toBe(600);
    expect((await testCallRows(owner.account.id)).map((r) => r.seconds)).toEqual([600, 600]);
  });
});
