// Authentication and tenancy of every operation, generated from the OpenAPI document the Worker
// serves: an operation that declares security answers 401 to a request without a credential,
// and an operation whose path names a record answers 404 when another account asks for it.
// A new operation is covered the day it lands: a path parameter with no factory below, a
// request body with no example, or a security scheme nobody says how to present, fails a test
// that names what is missing.
import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { issueInvoices } from "../../../worker/services/billing/invoices.ts";
import { addSipMessages, addTranscript, giveVerdict } from "../fixtures/call-record.ts";
import { bodyOf, expectStatus, firstOf, request, type RequestOptions } from "../fixtures/client.ts";
import { addDestination } from "../fixtures/destination.ts";
import { createAccount, testServices, uniqueEmail, type Session } from "../fixtures/factory.ts";
import { callOk, mcpClient } from "../fixtures/mcp-client.ts";
import { authorizeAgent } from "../fixtures/oauth.ts";
import { addRoutingRule, addWhitelistEntry, v4Block } from "../fixtures/network.ts";
import { callRow, node } from "../fixtures/node-client.ts";
import { SoftwareAuthenticator } from "../fixtures/software-authenticator.ts";
import { uniqueAni, verdictEvent } from "../fixtures/verdict.ts";

type OpenApiOperation = {
  security?: Array<Record<string, string[]>>;
  parameters?: Array<{ name: string; in: string }>;
  requestBody?: unknown;
};
type OpenApiDocument = {
  servers?: Array<{ url: string }>;
  security?: Array<Record<string, string[]>>;
  paths: Record<string, Record<string, OpenApiOperation>>;
};

const METHODS = ["get", "put", "post", "delete", "options", "head", "patch", "trace"];

const served = await request("GET", "/api/openapi.json");
if (served.status !== 200) throw new Error(`GET /api/openapi.json answered ${served.status}`);
// The document describes every route but its own.
const doc = served.body as OpenApiDocument;
const base = doc.servers?.[0]?.url ?? "";

type Operation = {
  /** "PATCH /customer/destinations/{dest_id}", as the document writes it. */
  name: string;
  method: string;
  path: string;
  /** Path parameters in the order the path names them. */
  params: string[];
  /** Security schemes that each grant access on their own. */
  schemes: string[];
  hasBody: boolean;
};

const operations: Operation[] = Object.entries(doc.paths).flatMap(([path, item]) =>
  Object.entries(item)
    .filter(([method]) => METHODS.includes(method))
    .map(([method, op]) => ({
      name: `${method.toUpperCase()} ${path}`,
      method: method.toUpperCase(),
      path,
      params: [...path.matchAll(/\{([^}]+)\}/g)].map((m) => m[1]!),
      schemes: (op.security ?? doc.security ?? []).flatMap((requirement) => Object.keys(requirement)),
      hasBody: op.requestBody !== undefined,
    })),
);

const secured = operations.filter((op) => op.schemes.some((s) => s === "BearerAuth" || s === "ApiKeyAuth"));
const recordScoped = secured.filter((op) => op.params.length > 0);

const fill = (path: string, values: Record<string, string>) =>
  path.replace(/\{([^}]+)\}/g, (_, name: string) => encodeURIComponent(values[name] ?? crypto.randomUUID()));

describe("authentication", () => {
  it("finds secured operations in the document", () => {
    expect(secured.length).toBeGreaterThan(10);
  });

  it.each(secured.map((op) => [op.name, op] as const))("%s answers 401 without a credential", async (_, op) => {
    const res = await request(op.method, `${base}${fill(op.path, {})}`);
    expectStatus(res, 401);
    expect(res.body).toEqual({ detail: "Not authenticated" });
  });
});

// ---------------------------------------------------------------------------------------------
// Tenancy: account A owns a record, account B asks for it.

type Accounts = { a: Session; b: Session & { apiKey: string } };
let accounts: Promise<Accounts> | undefined;

/** Two accounts for the whole file; every test makes its own records in A. */
const twoAccounts = () =>
  (accounts ??= (async () => {
    const [a, b] = await Promise.all([createAccount(), createAccount()]);
    // The file places more test and verification calls in A than a new account's daily cap allows.
    await env.DB.prepare("INSERT INTO placed_call_policies (customer_id, calls_per_day, updated_at) VALUES (?, 1000, ?)")
      .bind(a.account.id, new Date().toISOString())
      .run();
    const key = await b.client.post("/api/auth/api-keys", { name: "tenancy" });
    expectStatus(key, 201);
    return { a, b: { ...b, apiKey: key.body.key as string } };
  })());

/**
 * An ended call of `owner`'s, placed through the node API, with its recording and a capture
 * uploaded, a SIP ladder, and a verdict and a transcript as the analysis pipeline leaves them.
 */
async function recordedCall(owner: Session): Promise<string> {
  const block = v4Block();
  await addWhitelistEntry(owner, block.cidr);
  await addDestination(owner, { is_default: true });
  const { body: ticket } = await node.admit({ src_ip: `${block.base}.5`, dialed: "14155550123" });
  expect(ticket.decision, JSON.stringify(ticket)).toBe("admit");
  const t0 = Date.now();
  const at = (ms: number) => new Date(t0 + ms).toISOString();
  await node.event(ticket.call_id, { type: "answered", at: at(1_000) });
  await node.event(ticket.call_id, { type: "ended", at: at(31_000), answered_at: at(1_000), sip_code: 200, hangup_by: "caller" });
  for (const [name, bytes] of [
    ["recording.wav", wav()],
    ["caller.pcap", pcap()],
  ] as const) {
    const upload = await node.upload(ticket.call_id, name, bytes);
    expect(upload.status, JSON.stringify(upload.body)).toBe(200);
  }
  const row = await callRow(ticket.call_id);
  await addSipMessages(owner, ticket.call_id, [
    {
      time_stamp: row!.started_at,
      direction: "in",
      method: "INVITE",
      from_ip: `${block.base}.5:5060`,
      to_ip: "198.51.100.1:5060",
      first_line: "INVITE sip:14155550123@198.51.100.1 SIP/2.0",
    },
  ]);
  await giveVerdict(owner, { id: ticket.call_id, started_at: row!.started_at }, { probability: 80, entity: "Visa", keywords: ["pin"] });
  await addTranscript(owner, ticket.call_id);
  return ticket.call_id;
}

const callsToShare = new Map<string, Promise<string>>();
const callToShare = (owner: Session) => {
  let call = callsToShare.get(owner.account.id);
  if (!call) callsToShare.set(owner.account.id, (call = recordedCall(owner)));
  return call;
};

/**
 * How to make, in the owner's account, the record a path parameter names; `made` holds the
 * records of the parameters before it in the same path.
 */
const FACTORIES: Record<string, (owner: Session, made: Record<string, string>, path: string) => Promise<string>> = {
  passkey_id: async (owner) => {
    const begin = await owner.client.post("/api/auth/passkeys/register/begin");
    expectStatus(begin, 200);
    const credential = await (await SoftwareAuthenticator.create()).register(begin.body.options);
    const complete = await owner.client.post("/api/auth/passkeys/register/complete", { credential, state: begin.body.state });
    return bodyOf(complete, 201, "passkey").id;
  },
  key_id: async (owner) => bodyOf(await owner.client.post("/api/auth/api-keys", { name: "owner's key" }), 201, "API key").id,
  grant_id: async (owner) => (await authorizeAgent(owner, ["calls:read"])).grantId,
  user_id: async (owner) => bodyOf(await owner.client.post("/api/customer/users", { email: uniqueEmail("member") }), 201, "user").user.id,
  dest_id: async (owner) => (await addDestination(owner)).id,
  ip_id: async (owner) => (await addWhitelistEntry(owner, v4Block().cidr)).id,
  // {rule_id} names a routing rule, an automation rule or an alert rule, by the path it is in.
  rule_id: async (owner, _made, path) => {
    if (path.startsWith("/automation/"))
      return bodyOf(await owner.client.post("/api/automation/rules", { name: "Tenancy" }), 201, "automation rule").id;
    if (path.startsWith("/customer/alert-rules/"))
      return bodyOf(await owner.client.post("/api/customer/alert-rules", { name: "Tenancy" }), 201, "alert rule").id;
    return (await addRoutingRule(owner, "4930", (await addDestination(owner)).id)).id;
  },
  channel_id: async (owner) =>
    bodyOf(
      await owner.client.post("/api/customer/alert-channels", { kind: "slack", url: "https://hooks.nowhere.invalid/T/B/x" }),
      201,
      "alert channel",
    ).id,
  delivery_id: async (owner) => {
    const put = await owner.client.put("/api/customer/webhook", {
      url: "https://hooks.nowhere.invalid/x",
      secret: "a shared secret of ours",
    });
    expectStatus(put, 200);
    expect((await owner.client.post("/api/customer/webhook/test")).status).toBe(200);
    return firstOf(bodyOf(await owner.client.get("/api/customer/webhook/deliveries"), 200).items).id;
  },
  control_id: async (owner) => {
    expectStatus(await owner.client.post("/api/automation/rules", { name: "Tenancy" }), 201, "automation rule");
    await testServices().verdicts.deliver(await verdictEvent(owner, { ani: uniqueAni() }));
    const controls = await owner.client.get("/api/automation/controls");
    expectStatus(controls, 200);
    return firstOf(controls.body.items).id;
  },
  call_id: recordedCall,
  case_id: async (owner) => bodyOf(await owner.client.post("/api/cases", { title: "Tenancy" }), 201, "case").id,
  // Links of one recorded call per account: a call costs a whitelist entry, and the account is shared by the whole file.
  share_id: async (owner) => bodyOf(await owner.client.post(`/api/calls/${await callToShare(owner)}/share`, {}), 201, "share link").id,
  ticket_id: async (owner) => bodyOf(await owner.client.post("/api/support/tickets", { subject: "Tenancy", body: "?" }), 201, "ticket").id,
  test_call_id: async (owner) => {
    await defaultDestinationOf(owner);
    const res = await owner.client.post("/api/customer/test-calls", { number: "+14155550100" });
    expectStatus(res, 202, `test call: ${JSON.stringify(res.body)}`);
    return res.body.id;
  },
  check_id: async (owner) => {
    const destination = (await defaultDestinationOf(owner)) as { id: string };
    return bodyOf(await owner.client.post("/api/customer/cli/checks", { destination_id: destination.id, country: "GB" }), 202, "CLI check")
      .id;
  },
  schedule_id: async (owner) => {
    const destination = (await defaultDestinationOf(owner)) as { id: string };
    const body = { kind: "cli_check", destination_id: destination.id, country: "US", every: "daily" };
    return bodyOf(await owner.client.post("/api/customer/cli/schedules", body), 201, "schedule").id;
  },
  hosted_number_id: async (owner) => {
    const number = `+3312345${String(crypto.getRandomValues(new Uint32Array(1))[0]! % 10_000).padStart(4, "0")}`;
    return bodyOf(await owner.client.post("/api/customer/hosted-numbers", { number }), 201, "hosted number").id;
  },
  entry_id: async (owner) => {
    const number = `+12123${String(crypto.getRandomValues(new Uint32Array(1))[0]! % 1_000_000).padStart(6, "0")}`;
    const added = bodyOf(await owner.client.post("/api/customer/screening/do-not-originate", { number }), 201, "do-not-originate number");
    return firstOf(added.items, "the number added").id;
  },
  // The operator's settings of an account (admin routes): A's own id.
  customer_id: async (owner) => owner.account.id,
  number_id: async (owner) => {
    await defaultDestinationOf(owner);
    const number = `+1415${String(crypto.getRandomValues(new Uint32Array(1))[0]! % 10_000_000).padStart(7, "0")}`;
    return bodyOf(await owner.client.post("/api/customer/verified-numbers", { number }), 201, "verified number").id;
  },
  invoice_id: async (owner) => {
    // The Cron Trigger invoices last month: this month's (the welcome credit) is issued on the 1st of the next.
    const now = new Date();
    await issueInvoices(testServices(), new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + 1, 1, 1)));
    const list = await owner.client.get("/api/customer/invoices");
    expectStatus(list, 200);
    expect(list.body.total, JSON.stringify(list.body)).toBe(1);
    return firstOf(list.body.items).id;
  },
};

/** One default destination per account, for test calls and verification calls. */
const defaultDestinations = new Map<string, Promise<unknown>>();
const defaultDestinationOf = (owner: Session) => {
  let made = defaultDestinations.get(owner.account.id);
  if (!made) defaultDestinations.set(owner.account.id, (made = addDestination(owner, { is_default: true })));
  return made;
};

/** A valid body for each operation that takes one, so that only the record's owner decides the answer. */
const BODIES: Record<string, unknown> = {
  "PATCH /auth/passkeys/{passkey_id}": { name: "Renamed" },
  "PATCH /customer/users/{user_id}": { name: "Renamed" },
  "PATCH /customer/destinations/{dest_id}": { label: "Renamed" },
  "PATCH /customer/ips/{ip_id}": { label: "Renamed" },
  "POST /customer/ips/{ip_id}/verify": { code: "0000000000000000" },
  "PATCH /customer/routing-rules/{rule_id}": { label: "Renamed" },
  "PATCH /automation/rules/{rule_id}": { name: "Renamed" },
  "PATCH /customer/alert-rules/{rule_id}": { name: "Renamed" },
  "PATCH /customer/alert-channels/{channel_id}": { label: "Renamed" },
  "POST /calls/{call_id}/transfer": { target: "14155550199" },
  "PATCH /cases/{case_id}": { status: "in_review" },
  "POST /calls/{call_id}/share": { label: "Tenancy" },
  "POST /cases/{case_id}/comments": { body: "Seen before" },
  "PATCH /support/tickets/{ticket_id}": { status: "closed" },
  "POST /support/tickets/{ticket_id}/messages": { body: "Any news?" },
  "POST /admin/support/tickets/{ticket_id}/messages": { body: "Answered." },
  "POST /customer/verified-numbers/{number_id}/verify": { code: "000000" },
  "PATCH /admin/customers/{customer_id}/placed-call-policy": { calls_per_day: 5 },
  "PATCH /customer/cli/schedules/{schedule_id}": { enabled: false },
};

/** What the owner gets other than success for the same request, and why it is not a refusal of the owner. */
const OWNER_ANSWERS: Record<string, { status: number; reason: string }> = {
  "POST /customer/ips/{ip_id}/verify": {
    status: 422,
    reason: "the right code comes only in our answer to an OPTIONS from the range; a wrong one is 422 naming code, after the lookup",
  },
  "POST /admin/ips/{ip_id}/approve": {
    status: 403,
    reason: "approving a whitelist range is for platform administrators, and the entry's owner is a customer",
  },
  "POST /customer/alert-rules/{rule_id}/test": {
    status: 409,
    reason: "the factory's rule delivers by e-mail only, and the tests' Worker has no mail service configured (no_delivery)",
  },
  "POST /calls/{call_id}/transfer": { status: 409, reason: "the factory's call has ended, and only a call that is up can be transferred" },
  "POST /customer/test-calls/{test_call_id}/confirm": {
    status: 409,
    reason: "the factory's test call was asked for from a portal session, so it never awaited a confirmation",
  },
  "POST /customer/verified-numbers/{number_id}/verify": {
    status: 422,
    reason: "the right code is spoken only on the verification call; a wrong one is 422 naming code, after the lookup",
  },
  "POST /admin/support/tickets/{ticket_id}/messages": {
    status: 403,
    reason: "the service team's reply route is for platform administrators, and the ticket's owner is a customer",
  },
  ...Object.fromEntries(
    ["GET", "PATCH"].map((method) => [
      `${method} /admin/customers/{customer_id}/placed-call-policy`,
      { status: 403, reason: "an account's placed-call policy is set by platform administrators, and the account's owner is a customer" },
    ]),
  ),
};

type Presented = Pick<RequestOptions, "token" | "apiKey"> & { query?: Record<string, string> };

/** How account B presents each security scheme the document declares. */
const CREDENTIALS: Record<string, { label: string; present: (b: Accounts["b"]) => Promise<Presented> }> = {
  BearerAuth: { label: "bearer token", present: async (b) => ({ token: b.token }) },
  ApiKeyAuth: { label: "API key", present: async (b) => ({ apiKey: b.apiKey }) },
  RecordingToken: {
    label: "recording token for a call of its own",
    present: async (b) => {
      const own = await recordedCall(b);
      const minted = await b.client.get(`/api/calls/${own}/recording-token`);
      expectStatus(minted, 200);
      return { query: { t: new URL(minted.body.url).searchParams.get("t")! } };
    },
  },
  MediaLinkToken: {
    label: "link token (report_links) for a call of its own",
    present: async (b) => {
      const own = await recordedCall(b);
      const links = await callOk(await mcpClient({ apiKey: b.apiKey }), "report_links", { call_id: own });
      return { query: { t: new URL(links.pcap_url).searchParams.get("t")! } };
    },
  },
};

/**
 * Answers other than 404 that are right, each with why: "<operation> via <scheme>" → status.
 * The document is the list of operations; an exception naming none of them fails below.
 */
const EXCEPTIONS: Record<string, { status: number; reason: string }> = {
  ...Object.fromEntries(
    ["BearerAuth", "ApiKeyAuth"].map((scheme) => [
      `POST /admin/support/tickets/{ticket_id}/messages via ${scheme}`,
      { status: 403, reason: "only a platform administrator may answer as the service team (admin_required), before any lookup" },
    ]),
  ),
  // Credential management takes a portal session (issue 20, finding 5): any API key is refused first.
  ...Object.fromEntries(
    [
      "PATCH /auth/passkeys/{passkey_id}",
      "DELETE /auth/passkeys/{passkey_id}",
      "DELETE /auth/passkeys/members/{user_id}",
      "DELETE /auth/api-keys/{key_id}",
      "PATCH /customer/users/{user_id}",
      "POST /customer/users/{user_id}/resend-invite",
    ].map((operation) => [
      `${operation} via ApiKeyAuth`,
      {
        status: 403,
        reason: "credentials are managed from a portal session, never with an API key (portal_session_required), before any lookup",
      },
    ]),
  ),
  ...Object.fromEntries(
    ["BearerAuth", "ApiKeyAuth"].map((scheme) => [
      `POST /admin/ips/{ip_id}/approve via ${scheme}`,
      { status: 403, reason: "only a platform administrator may approve a whitelist range (admin_required), before any lookup" },
    ]),
  ),
  ...Object.fromEntries(
    ["GET", "PATCH"].flatMap((method) =>
      ["BearerAuth", "ApiKeyAuth"].map((scheme) => [
        `${method} /admin/customers/{customer_id}/placed-call-policy via ${scheme}`,
        {
          status: 403,
          reason: "only a platform administrator may read or set an account's placed-call policy (admin_required), before any lookup",
        },
      ]),
    ),
  ),
  "POST /customer/test-calls/{test_call_id}/confirm via ApiKeyAuth": {
    status: 403,
    reason: "a test call is confirmed by a person in the portal, never with an API key (portal_session_required), before any lookup",
  },
  "GET /calls/{call_id}/recording via RecordingToken": {
    status: 401,
    reason:
      "a recording token is bound to one call, not to an account: one minted for another call is refused " +
      "before any lookup, whoever owns the call in the path",
  },
  ...Object.fromEntries(
    ["pcap", "sip-ladder"].map((file) => [
      `GET /calls/{call_id}/${file} via MediaLinkToken`,
      {
        status: 401,
        reason:
          "a link token is bound to one file of one call, not to an account: one minted for another call (or file) is " +
          "refused before any lookup, whoever owns the call in the path",
      },
    ]),
  ),
};

const sweep = recordScoped.flatMap((op) => op.schemes.map((scheme) => ({ op, scheme, key: `${op.name} via ${scheme}` })));

describe("tenancy", () => {
  it("finds operations on records in the document", () => {
    expect(recordScoped.length).toBeGreaterThan(5);
  });

  it("lists no exception for an operation or scheme the document does not have", () => {
    const swept = new Set(sweep.map((s) => s.key));
    expect(Object.keys(EXCEPTIONS).filter((key) => !swept.has(key))).toEqual([]);
  });

  it.each(sweep.map((s) => [s.op.name, EXCEPTIONS[s.key]?.status ?? 404, CREDENTIALS[s.scheme]?.label ?? s.scheme, s] as const))(
    "%s answers %i to another account's %s",
    async (_name, expected, _label, { op, scheme }) => {
      const credential = CREDENTIALS[scheme];
      if (!credential) throw new Error(`no way to present security scheme ${scheme} of ${op.name}: add it to CREDENTIALS`);
      if (op.hasBody && !(op.name in BODIES)) throw new Error(`no request body for ${op.name}: add a valid one to BODIES`);
      const { a, b } = await twoAccounts();

      const made: Record<string, string> = {};
      for (const param of op.params) {
        const factory = FACTORIES[param];
        if (!factory) throw new Error(`no factory for path parameter {${param}} of ${op.name}: add one to FACTORIES`);
        made[param] = await factory(a, made, op.path);
      }
      const path = `${base}${fill(op.path, made)}`;
      const body = BODIES[op.name];

      const { query, ...headers } = await credential.present(b);
      const asB = await request(op.method, query ? `${path}?${new URLSearchParams(query)}` : path, { ...headers, body });
      expect(asB.status, `${op.name} as the other account: ${JSON.stringify(asB.body)}`).toBe(expected);

      // The same request succeeds for the owner: the record exists and the body is valid.
      const asA = await request(op.method, path, { token: a.token, body });
      const owner = OWNER_ANSWERS[op.name];
      const message = `${op.name} as the owner: ${asA.status} ${JSON.stringify(asA.body)}`;
      if (owner) expect(asA.status, message).toBe(owner.status);
      else expect(asA.status >= 200 && asA.status < 300, message).toBe(true);
    },
  );
});

/** A PCM WAV (8 kHz, 16-bit, mono) of a tenth of a second of silence. */
function wav(): Uint8Array {
  const samples = 800;
  const bytes = new Uint8Array(44 + samples * 2);
  const view = new DataView(bytes.buffer);
  const ascii = (at: number, text: string) => [...text].forEach((ch, i) => view.setUint8(at + i, ch.charCodeAt(0)));
  ascii(0, "RIFF");
  view.setUint32(4, 36 + samples * 2, true);
  ascii(8, "WAVE");
  ascii(12, "fmt ");
  view.setUint32(16, 16, true);
  view.setUint16(20, 1, true);
  view.setUint16(22, 1, true);
  view.setUint32(24, 8000, true);
  view.setUint32(28, 16000, true);
  view.setUint16(32, 2, true);
  view.setUint16(34, 16, true);
  ascii(36, "data");
  view.setUint32(40, samples * 2, true);
  return bytes;
}

/** A libpcap file (microsecond, Ethernet) with one 60-byte record. */
function pcap(): Uint8Array {
  const bytes = new Uint8Array(24 + 16 + 60);
  const view = new DataView(bytes.buffer);
  view.setUint32(0, 0xa1b2c3d4, true);
  view.setUint16(4, 2, true);
  view.setUint16(6, 4, true);
  view.setUint32(16, 65535, true);
  view.setUint32(20, 1, true);
  view.setUint32(24, 1_780_000_000, true);
  view.setUint32(32, 60, true);
  view.setUint32(36, 60, true);
  return bytes;
}
