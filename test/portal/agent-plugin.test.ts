// The product's agent plugin followed step by step against `npm start` (issue 31): the MCP SDK's
// client, as the plugin's host runs it, through the onboarding, route-test, fraud-review and
// CLI-verification skills, each step a test of its own and in the skill's order. It connects with
// no credential (initialize, tools/list and get_started answer), is answered 401 by the first tool
// that needs an account (the challenge starts the SDK's OAuth flow: registration, PKCE, the
// person's consent), then calls each tool under the names the skills use (`destination`, `ip`,
// `id`). No step may meet "Tool not found" or an argument dropped unseen: an unknown one is refused
// naming the accepted ones. The account's second destination is the SIP node's hosted-number
// listener, a route that delivers to the numbers the platform holds: a test call through it is
// answered, and a CLI check through it reads `match`.
import { UnauthorizedError } from "@modelcontextprotocol/sdk/client/auth.js";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { beforeAll, describe, expect, it } from "vitest";
import { MemoryAgent } from "../shared/agent-oauth.ts";
import { answersFrom, freeUdpPort } from "../sip-node/harness.ts";
import { consent } from "./oauth-consent.ts";
import { browserFor, claimSource, newOwner, placeCall, portal, signIn, until, type Owner, type WithTrunk } from "./fixtures.ts";

/** A number the platform holds in GB (npm start's CLI_NUMBERS): the listener answers calls to it. */
const HELD_GB = "+442079460000";
const REDIRECT = "http://127.0.0.1:33419/callback";
const AGENT_NAME = "Open Voice Shield plugin";
const FINAL = ["done", "failed", "cancelled", "expired"];

/** Every tool the four skills call. */
const SKILL_TOOLS = {
  onboarding: [
    "get_started",
    "list_destinations",
    "add_destination",
    "check_destination",
    "whitelist_ip",
    "add_routing_rule",
    "set_webhook",
    "list_channels",
  ],
  routeTest: ["place_test_call", "get_test_call"],
  fraudReview: ["list_calls", "get_call", "get_transcript", "report_links"],
  cliVerification: ["cli_coverage", "verify_cli", "get_cli_check", "host_number", "test_hosted_number", "list_hosted_numbers"],
};

/** One HTTP exchange with /api/mcp as the SDK made it. */
type Exchange = { method: string; authorized: boolean; status: number; challenge: string | null };

const host = new MemoryAgent({ name: AGENT_NAME, redirect: REDIRECT, state: "agent-plugin" });
const exchanges: Exchange[] = [];
/** The SDK's fetch, kept: what went out with or without a credential, and what came back. */
const recordingFetch: typeof fetch = async (input, init) => {
  const res = await fetch(input, init);
  const headers = new Headers(init?.headers);
  exchanges.push({
    method: init?.method ?? "GET",
    authorized: headers.has("authorization"),
    status: res.status,
    challenge: res.headers.get("www-authenticate"),
  });
  return res;
};
const endpoint = new URL("/api/mcp", portal.base);
const transport = new StreamableHTTPClientTransport(endpoint, { authProvider: host, fetch: recordingFetch });
const client = new Client({ name: "open-voice-shield-plugin", version: "1.0.0" });

const textOf = (result: CallToolResult) =>
  result.content
    .filter((c) => c.type === "text")
    .map((c) => c.text)
    .join("\n");

/** A tool call the step expects to succeed: its structured answer. */
async function ok(tool: string, args: Record<string, unknown> = {}): Promise<any> {
  const result = (await client.callTool({ name: tool, arguments: args })) as CallToolResult;
  expect(textOf(result), tool).not.toMatch(/Tool .* not found/i);
  expect(result.isError, `${tool}: ${textOf(result)}`).toBeFalsy();
  return result.structuredContent;
}

/** A tool call the step expects refused by the tool (not unknown to the server): its text. */
async function refused(tool: string, args: Record<string, unknown>): Promise<string> {
  const result = (await client.callTool({ name: tool, arguments: args })) as CallToolResult;
  expect(result.isError, `${tool} should be refused: ${JSON.stringify(result.structuredContent)}`).toBe(true);
  const text = textOf(result);
  expect(text, tool).not.toMatch(/Tool .* not found/i);
  return text;
}

/** The account the person signs in with, and what the skills make in it as they go. */
let owner: Owner;
const made = {
  /** The carrier's SBC address, claimed for this account (127.0.x.y). */
  src: "",
  /** The default destination: a sipp UAS on this UDP port (answers the fraud-review call). */
  sippPort: 0,
  sbc: undefined as any,
  /** The second destination: the hosted-number listener, a route to the numbers the platform holds. */
  listener: undefined as any,
  testCall: undefined as any,
  call: undefined as any,
  check: undefined as any,
};

beforeAll(async () => {
  owner = await newOwner({ name: "Pat Plugin", company: "Plugin Carrier" });
  made.src = claimSource();
  made.sippPort = await freeUdpPort();
});

describe("onboarding skill", () => {
  it("1. connects without a credential (initialize)", async () => {
    await client.connect(transport);
    expect(client.getServerVersion()?.name).toBe("call-shield");
    expect(exchanges.length).toBeGreaterThan(0);
    // No credential went out, and nothing was refused: initialize, its notification, and the GET
    // for an event stream the stateless server does not keep (405, which the SDK expects).
    for (const e of exchanges) expect(e).toMatchObject({ authorized: false, status: e.method === "GET" ? 405 : expect.any(Number) });
    expect(exchanges.filter((e) => e.status >= 400 && e.method !== "GET")).toEqual([]);
  });

  it("2. lists the tools: every tool the four skills use, the six CLI tools included", async () => {
    const { tools } = await client.listTools();
    const names = tools.map((t) => t.name);
    for (const tool of Object.values(SKILL_TOOLS).flat()) expect(names, `tools/list names ${tool}`).toContain(tool);
    // The skills' names for arguments are listed, so a client that checks its arguments keeps them.
    const input = (name: string) => tools.find((t) => t.name === name)!.inputSchema.properties ?? {};
    expect(Object.keys(input("place_test_call"))).toEqual(expect.arrayContaining(["destination", "destination_id"]));
    expect(Object.keys(input("whitelist_ip"))).toEqual(expect.arrayContaining(["ip", "cidr"]));
    expect(Object.keys(input("get_test_call"))).toEqual(expect.arrayContaining(["id", "test_call_id"]));
    expect(Object.keys(input("verify_cli"))).toEqual(expect.arrayContaining(["destination", "country", "caller_id"]));
    expect(Object.keys(input("get_cli_check"))).toEqual(expect.arrayContaining(["id", "check_id"]));
  });

  it("3. get_started without a credential: what the service does, its prices, where to send calls, how to sign in", async () => {
    const started = await ok("get_started");
    expect(started).toMatchObject({
      signed_in: false,
      account: null,
      ingress: { ingress_host: "127.0.0.1", ingress_port: portal.sipPort, transports: expect.arrayContaining(["udp", "tcp"]) },
      next_step: { step: "Sign in", done: false, tool: null },
      pricing: { currency: "USD", new_account: { plan: expect.any(String), welcome_credit: expect.any(Number) } },
      sign_in: { needed_for: expect.stringMatching(/Every tool but get_started/), scopes: expect.arrayContaining(["test_calls"]) },
    });
    expect(started.service).toMatch(/screens a carrier's SIP calls for fraud/);
    expect(started.pricing.plans.length).toBeGreaterThan(0);
    expect(started.pricing.plans[0]).toMatchObject({ monthly_fee: expect.any(Number) });
    expect(started.pricing.ai_tiers.length).toBeGreaterThan(0);
    expect(started.sign_in.mcp_endpoint).toMatch(/\/api\/mcp$/);
    expect(started.sign_in.resource_metadata).toMatch(/\/\.well-known\/oauth-protected-resource\/api\/mcp$/);
    expect(started.sign_in.sign_up_url).toMatch(/\/app\/sign-up$/);
    expect(started.steps.map((s: { tool: string | null }) => s.tool)).toEqual([
      null,
      "add_destination",
      "check_destination",
      "whitelist_ip",
      "add_routing_rule",
      "set_webhook",
      "add_alert_rule",
    ]);
  });

  it("4. list_destinations without a credential: 401 with WWW-Authenticate naming resource_metadata, which starts the SDK's OAuth", async () => {
    const before = exchanges.length;
    await expect(client.callTool({ name: "list_destinations", arguments: {} })).rejects.toBeInstanceOf(UnauthorizedError);
    const refusal = exchanges.slice(before).find((e) => e.method === "POST");
    expect(refusal).toMatchObject({ authorized: false, status: 401 });
    expect(refusal!.challenge).toMatch(/^Bearer /);
    expect(refusal!.challenge).toMatch(/resource_metadata="[^"]+\/\.well-known\/oauth-protected-resource\/api\/mcp"/);
    // The SDK registered itself (dynamic registration) and sends the person to authorise, with PKCE.
    expect(host.clientInformation()?.client_id).toEqual(expect.any(String));
    const authorize = host.authorizationUrl!;
    expect(authorize.pathname).toMatch(/\/oauth\/authorize$/);
    expect(authorize.searchParams.get("client_id")).toBe(host.clientInformation()!.client_id);
    expect(authorize.searchParams.get("code_challenge_method")).toBe("S256");
    expect(authorize.searchParams.get("code_challenge")).toEqual(expect.any(String));
    expect(host.tokens()).toBeUndefined();
  });

  it("5. signs in: the person approves the plugin and the SDK exchanges the code with its PKCE verifier", async () => {
    const back = await consent(host.authorizationUrl!, owner);
    expect(back.origin + back.pathname).toBe(REDIRECT);
    expect(back.searchParams.get("state")).toBe("agent-plugin");
    await transport.finishAuth(back.searchParams.get("code")!);
    expect(host.tokens()).toMatchObject({ access_token: expect.any(String), token_type: expect.stringMatching(/^bearer$/i) });
  });

  it("6. list_destinations, signed in: none yet; get_started answers the account's checklist", async () => {
    expect(await ok("list_destinations")).toMatchObject({ items: [], total: 0 });
    expect(exchanges.at(-1)).toMatchObject({ authorized: true, status: 200 });
    const started = await ok("get_started");
    expect(started).toMatchObject({ signed_in: true, account: { id: owner.id }, next_step: { tool: "add_destination", done: false } });
  });

  it("7. add_destination: the carrier's SBC as the default, and a second route (the hosted-number listener)", async () => {
    made.sbc = await ok("add_destination", { host: "127.0.0.1", port: made.sippPort, is_default: true, label: "Carrier SBC" });
    expect(made.sbc).toMatchObject({ host: "127.0.0.1", port: made.sippPort, transport: "udp", is_default: true, label: "Carrier SBC" });
    made.listener = await ok("add_destination", { host: "127.0.0.1", port: portal.cliPort, label: "CLI route" });
    expect(made.listener).toMatchObject({ host: "127.0.0.1", port: portal.cliPort, is_default: false, label: "CLI route" });
    const listed = await ok("list_destinations");
    expect(listed.total).toBe(2);
    expect(listed.items.map((d: { id: string }) => d.id).sort()).toEqual([made.sbc.id, made.listener.id].sort());
  });

  it("8. check_destination with `destination`: the second route answers SIP OPTIONS", async () => {
    const checked = await ok("check_destination", { destination: made.listener.id });
    expect(checked).toMatchObject({ id: made.listener.id, monitor_status: "up", monitor_last_code: 200 });
  });

  it("9. whitelist_ip with `ip`: the SBC's address admits calls", async () => {
    const entry = await ok("whitelist_ip", { ip: made.src, label: "Carrier SBC" });
    expect(entry).toMatchObject({ cidr: `${made.src}/32`, admits_calls: true, label: "Carrier SBC" });
    // The SIP node has the entry once it answers an OPTIONS from the address.
    await answersFrom(portal.sipPort, made.src, 20_000);
  });

  it("10. add_routing_rule with `destination`: calls to the held numbers' prefix go to the second route", async () => {
    const rule = await ok("add_routing_rule", { prefix: "44207946", destination: made.listener.id });
    expect(rule).toMatchObject({ prefix: "44207946", destination_id: made.listener.id });
  });

  it("11. set_webhook and list_channels, as get_started lists them; the checklist shows what is done", async () => {
    const url = "https://hooks.plugin-carrier.example/call-shield";
    const webhook = await ok("set_webhook", { url });
    // A webhook is stored with its signing secret, which a person sets on the alerts page.
    expect(webhook).toMatchObject({ url_saved: false, secret_set: false });
    expect(webhook.secret_url).toMatch(/\/app\/alerts\?webhook_url=/);
    expect(new URL(webhook.secret_url).searchParams.get("webhook_url")).toBe(url);
    expect(await ok("list_channels")).toMatchObject({ items: [], total: 0 });
    const started = await ok("get_started");
    const done = Object.fromEntries(started.steps.map((s: { tool: string; done: boolean }) => [s.tool, s.done]));
    expect(done).toEqual({
      add_destination: true,
      check_destination: true,
      whitelist_ip: true,
      add_routing_rule: true,
      set_webhook: false,
      add_alert_rule: false,
    });
    expect(started.next_step.tool).toBe("set_webhook");
  });
});

describe("route-test skill", () => {
  it("1. place_test_call with `destination` naming the second route: awaiting_confirm with a confirm_url", async () => {
    made.testCall = await ok("place_test_call", { destination: made.listener.id, number: HELD_GB, seconds: 5 });
    expect(made.testCall).toMatchObject({
      status: "awaiting_confirm",
      destination_id: made.listener.id,
      number: HELD_GB,
      seconds: 5,
      created_by: `Pat Plugin via ${AGENT_NAME}`,
      confirm_url: `${portal.base}/app/test-calls/${made.testCall.id}/confirm`,
    });
  });

  it("2. an unknown argument (`destinaton`) is refused naming the accepted ones, and nothing is placed", async () => {
    const text = await refused("place_test_call", { destinaton: made.listener.id, number: HELD_GB });
    expect(text).toContain("destinaton");
    expect(text).toContain("destination_id (or destination)");
    expect(text).toContain("number");
    const placed = await owner.api("/customer/test-calls");
    expect(placed.map((t: { id: string }) => t.id)).toEqual([made.testCall.id]);
  });

  it("3. the person confirms it in the portal", async (test) => {
    const { page } = await browserFor(test);
    await signIn(page, owner);
    await page.goto(made.testCall.confirm_url);
    await page.getByRole("heading", { level: 1, name: "Confirm a test call" }).waitFor();
    expect(await page.getByTestId("created-by").textContent()).toBe(`Pat Plugin via ${AGENT_NAME}`);
    expect(await page.getByTestId("number").textContent()).toBe(HELD_GB);
    const confirming = page.waitForResponse(
      (r) => r.url().endsWith(`/test-calls/${made.testCall.id}/confirm`) && r.request().method() === "POST",
    );
    await page.getByRole("button", { name: "Confirm the call" }).click();
    expect(await (await confirming).json()).toMatchObject({ status: "queued", confirmed_by: "Pat Plugin" });
  });

  it("4. get_test_call with `id` until done: answered through the destination named, not the default", async () => {
    const ended = await until(
      "the test call to end",
      async () => {
        const now = await ok("get_test_call", { id: made.testCall.id });
        return FINAL.includes(now.status) ? now : null;
      },
      60_000,
      500,
    );
    expect(ended).toMatchObject({ status: "done", answered: true, sip_code: 200, destination_id: made.listener.id });
    expect(ended.destination_id).not.toBe(made.sbc.id);
    expect(ended.call_id).toEqual(expect.any(String));
    made.testCall = ended;
  });
});

describe("fraud-review skill", () => {
  it("1. a call from the carrier's SBC through the platform (sipp to the default destination), analysed", async () => {
    const trunk = { src: made.src, port: made.sippPort, destination: made.sbc, ip: null };
    made.call = await placeCall(Object.assign(owner, { trunk }) as WithTrunk<Owner>, "answered", { analysed: true });
    expect(made.call).toMatchObject({ status: "completed", routed_destination_id: made.sbc.id });
  }, 240_000);

  it("2. list_calls: the carrier's call and the test call's", async () => {
    const page = await ok("list_calls", { limit: 20 });
    const ids = page.items.map((c: { id: string }) => c.id);
    expect(ids).toEqual(expect.arrayContaining([made.call.id, made.testCall.call_id]));
    // Filtered by destination under the skills' name for it.
    const routed = await ok("list_calls", { destination: made.listener.id });
    expect(routed.items.map((c: { id: string }) => c.id)).toEqual([made.testCall.call_id]);
  });

  it("3. get_call: the call with its verdict", async () => {
    const call = await ok("get_call", { call_id: made.call.id });
    expect(call).toMatchObject({ id: made.call.id, status: "completed", analysis_status: made.call.analysis_status });
    if (call.analysis_status === "done") {
      expect(call.analysis).toMatchObject({ probability: expect.any(Number), recommendation: expect.any(String) });
    }
    made.call = call;
  });

  it("4. get_transcript when the call has one (else the tool says why, by name)", async () => {
    if (made.call.transcript) {
      const transcript = await ok("get_transcript", { call_id: made.call.id });
      expect(transcript.text).toEqual(expect.any(String));
      expect(Array.isArray(transcript.segments)).toBe(true);
    } else {
      expect(await refused("get_transcript", { call_id: made.call.id })).toMatch(/transcript/i);
    }
  });

  it("5. report_links: the recording, the packet capture and the SIP ladder open without any header", async () => {
    const links = await ok("report_links", { call_id: made.call.id });
    expect(links).toMatchObject({ call_id: made.call.id, links_expire_in: expect.any(Number) });
    expect(links.report_pdf_url).toMatch(new RegExp(`/api/calls/${made.call.id}/report\\.pdf$`));
    const expected: [string, RegExp][] = [
      ["recording_url", /^audio\//],
      ["pcap_url", /^application\/(vnd\.tcpdump\.pcap|zip)/],
      ["sip_ladder_url", /^text\/plain/],
    ];
    for (const [name, type] of expected) {
      expect(links[name], name).toEqual(expect.any(String));
      const res = await fetch(links[name]);
      const body = new Uint8Array(await res.arrayBuffer());
      expect(res.status, `${name} without a header`).toBe(200);
      expect(res.headers.get("content-type"), name).toMatch(type);
      expect(body.byteLength, name).toBeGreaterThan(0);
    }
    const ladder = await (await fetch(links.sip_ladder_url)).text();
    expect(ladder).toContain("INVITE");
  });
});

describe("CLI-verification skill", () => {
  it("1. cli_coverage: GB and US can take checks, with the fee", async () => {
    const coverage = await ok("cli_coverage");
    const countries = coverage.countries.map((c: { country: string }) => c.country);
    expect(countries).toEqual(expect.arrayContaining(["GB", "US"]));
    for (const country of coverage.countries) expect(country.numbers).toBeGreaterThan(0);
    expect(coverage.fee_usd).toBeGreaterThan(0);
    expect(coverage.hosted_share_percent).toBeGreaterThan(0);
    made.check = { fee: coverage.fee_usd };
  });

  it("2. verify_cli with `destination` (the route at the listener) and country GB: placing", async () => {
    const fee = made.check.fee;
    const asked = await ok("verify_cli", { destination: made.listener.id, country: "GB" });
    expect(asked).toMatchObject({
      status: "placing",
      result: null,
      destination_id: made.listener.id,
      country: "GB",
      number_called: HELD_GB,
      hosted: false,
      fee_usd: fee,
    });
    expect(asked.sent.caller_id).toMatch(/^\+?\d{6,15}$/);
    made.check = { ...asked, fee };
  });

  it("3. get_cli_check with `id` until completed: match, the caller ID sent and received, delays and MOS", async () => {
    const done = await until(
      "the CLI check to complete",
      async () => {
        const now = await ok("get_cli_check", { id: made.check.id });
        return now.status !== "placing" ? now : null;
      },
      60_000,
      500,
    );
    expect(done).toMatchObject({ status: "completed", result: "match", change: null, destination_id: made.listener.id });
    expect(done.received).toMatchObject({ privacy: [] });
    expect(done.received.from.replace(/^\+/, "")).toBe(done.sent.caller_id.replace(/^\+/, ""));
    expect(done.post_dial_delay_ms).toBeGreaterThanOrEqual(0);
    expect(done.answer_delay_ms).toBeGreaterThanOrEqual(0);
    expect(done.mos.sent).toBeGreaterThan(1);
    expect(done.mos.received).toBeGreaterThan(1);
    expect(done.call_id).toEqual(expect.any(String));
    made.check = { ...done, fee: made.check.fee };
  });

  it("4. the account's ledger holds the check's fee once", async () => {
    const ledger = (await owner.api("/customer/ledger?limit=100")).items as { type: string; amount: number }[];
    const fees = ledger.filter((e) => e.type === "cli_check");
    expect(fees).toHaveLength(1);
    expect(fees[0]!.amount).toBeCloseTo(-made.check.fee, 6);
    expect(ledger.filter((e) => e.type === "cli_check_refund")).toEqual([]);
  });

  it("5. host_number, test_hosted_number with `id`, list_hosted_numbers: pending, listening, forwarded to the listener", async () => {
    const number = `+3312345${String(Math.floor(Math.random() * 10_000)).padStart(4, "0")}`;
    const hosted = await ok("host_number", { number, reach_by: "forwarded by my provider" });
    expect(hosted).toMatchObject({ number, country: "FR", status: "pending", checks_answered: 0, earnings_usd: 0 });
    expect(hosted.forward_to).toBe(`sip:${number}@127.0.0.1:${portal.cliPort}`);
    const listening = await ok("test_hosted_number", { id: hosted.id });
    expect(listening).toMatchObject({ id: hosted.id, status: "pending", awaiting_test_call_until: expect.any(String) });
    const listed = await ok("list_hosted_numbers");
    expect(listed).toMatchObject({ total: 1, items: [{ id: hosted.id, number, status: "pending", forward_to: hosted.forward_to }] });
  });
});
