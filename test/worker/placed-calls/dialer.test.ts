// The web dialer's token (POST /customer/dialer/session) and the admission of the calls placed
// with it (origin dialer): minted only while the account's dialer is on, stored as a hash, spent
// by one call, refused when expired, spent, another account's or forged, and before anything is
// reserved; the call it admits is routed, charged and recorded like a carrier call. The page
// (/dialer) is a fixed shell under a CSP of our origin and the node's WebSocket.
import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { as, bodyOf, expectStatus, issuesOf, request } from "../fixtures/client.ts";
import { addDestination } from "../fixtures/destination.ts";
import { addMember, createAccount, makePlatformAdmin, testServices, type Session } from "../fixtures/factory.ts";
import { syncAdmissionState } from "../../../worker/services/trunk/admission-state.ts";
import { sweepLapsedDialerTokens } from "../../../worker/services/placed-calls/dialer.ts";
import { callRow, node } from "../fixtures/node-client.ts";

const BROWSER = "198.51.100.77";

async function dialerAccount() {
  const owner = await createAccount();
  // Past its pilot, so its calls are charged.
  await env.DB.prepare("UPDATE customers SET dialer_enabled = 1, pilot_ends_at = ? WHERE id = ?")
    .bind("2020-01-01T00:00:00.000Z", owner.account.id)
    .run();
  const destination = await addDestination(owner, { host: "pbx.customer.test", is_default: true });
  return { ...owner, destination };
}

const mint = (session: Session) => session.client.post("/api/customer/dialer/session", {});

const dial = (customerId: string, token: string, dialed = "14155550123") =>
  node.admit({ src_ip: BROWSER, dialed, origin: "dialer", customer_id: customerId, dialer_token: token });

const sessionRow = (customerId: string) =>
  env.DB.prepare("SELECT * FROM dialer_sessions WHERE customer_id = ? ORDER BY created_at DESC LIMIT 1")
    .bind(customerId)
    .first<Record<string, any>>();

const REFUSED = { decision: "reject", sip_code: 403, reason: "dialer_token_refused", call_id: null };

describe("POST /customer/dialer/session", () => {
  it("answers 403 dialer_disabled while the account's dialer is off, and stores nothing", async () => {
    const owner = await createAccount();
    const res = await mint(owner);
    expect(res.status).toBe(403);
    expect(res.body).toEqual({ detail: "dialer_disabled" });
    expect(await sessionRow(owner.account.id)).toBeNull();
  });

  it("mints a token of the account for a few minutes, with the WebSocket URL, kept only as a hash", async () => {
    const owner = await dialerAccount();
    const before = Date.now();
    const res = await mint(owner);
    expectStatus(res, 200);
    const { token, expires_at, expires_in, websocket_url, sip_domain } = res.body;
    expect(token.startsWith(`${owner.account.id}.`)).toBe(true);
    expect(expires_in).toBe(180);
    expect(Date.parse(expires_at) - before).toBeGreaterThanOrEqual(179_000);
    expect(Date.parse(expires_at) - before).toBeLessThan(185_000);
    expect(websocket_url).toBe("ws://127.0.0.1:5066");
    expect(sip_domain).toBe("127.0.0.1");
    const row = await sessionRow(owner.account.id);
    expect(row).toMatchObject({ customer_id: owner.account.id, expires_at, used_at: null, call_id: null });
    expect(row!.token_hash).not.toContain(token.split(".")[1]);
    expect(JSON.stringify(row)).not.toContain(token);
    // The body is optional.
    const bare = await request("POST", "/api/customer/dialer/session", { token: owner.token });
    expectStatus(bare, 200);
    expect(bare.body.caller_id).toBeNull();
  });

  it("is for the account's people: a member and an API key may mint, each token names its user", async () => {
    const owner = await dialerAccount();
    const member = await addMember(owner);
    expect((await mint(member)).status).toBe(200);
    expect((await sessionRow(owner.account.id))!.user_id).toBe(member.userId);
    const key = await owner.client.post("/api/auth/api-keys", { name: "dialer script" });
    expectStatus(key, 201);
    expect((await as({ apiKey: key.body.key }).post("/api/customer/dialer/session", {})).status).toBe(200);
  });

  it("is not for an administrator inside an impersonation (403 impersonation_forbidden)", async () => {
    const owner = await dialerAccount();
    const admin = await createAccount();
    await makePlatformAdmin(admin);
    const acting = await request("POST", "/api/admin/impersonate", {
      token: admin.token,
      body: { customer_id: owner.account.id, reason: "Ticket 8" },
    });
    expectStatus(acting, 200);
    const res = await as({ token: acting.body.access_token }).post("/api/customer/dialer/session", {});
    expectStatus(res, 403);
    expect(res.body).toEqual({ detail: "impersonation_forbidden" });
  });
});

describe("the caller ID", () => {
  const verify = (owner: Session, number: string, verified = true) =>
    env.DB.prepare(
      "INSERT INTO verified_numbers (id, customer_id, number, verified_at, verification_method, created_at, updated_at) VALUES (?, ?, ?, ?, 'call', ?, ?)",
    )
      .bind(
        crypto.randomUUID(),
        owner.account.id,
        number,
        verified ? new Date().toISOString() : null,
        new Date().toISOString(),
        new Date().toISOString(),
      )
      .run();

  it("is one of the account's verified numbers, shown on the call; anything else is 422 caller_id_not_verified, nothing stored", async () => {
    const owner = await dialerAccount();
    const other = await dialerAccount();
    await verify(owner, "+14155550100");
    await verify(owner, "+14155550111", false);
    await verify(other, "+14155550199");
    for (const number of ["+14155550111", "+14155550199", "+14155550122"]) {
      const refused = await owner.client.post("/api/customer/dialer/session", { caller_id: number });
      expectStatus(refused, 422, number);
      expect(refused.body.detail[0]).toMatchObject({ loc: ["body", "caller_id"], msg: "caller_id_not_verified" });
    }
    const malformed = await owner.client.post("/api/customer/dialer/session", { caller_id: "call me" });
    expectStatus(malformed, 422);
    expect(issuesOf(malformed.body)[0]?.loc).toEqual(["body", "caller_id"]);
    expect(await sessionRow(owner.account.id)).toBeNull();

    const minted = await owner.client.post("/api/customer/dialer/session", { caller_id: "+14155550100" });
    expectStatus(minted, 200);
    expect(minted.body.caller_id).toBe("+14155550100");
    const res = await dial(owner.account.id, minted.body.token);
    expect(res.body).toMatchObject({ decision: "admit", ani: "+14155550100" });
    expect(await callRow(res.body.call_id)).toMatchObject({ ani: "+14155550100", origin: "dialer" });
  });

  it("is none without one: the browser's own From is not shown", async () => {
    const owner = await dialerAccount();
    const { token, caller_id } = bodyOf(await mint(owner), 200);
    expect(caller_id).toBeNull();
    const res = await node.admit({
      src_ip: BROWSER,
      dialed: "1415",
      origin: "dialer",
      customer_id: owner.account.id,
      dialer_token: token,
      ani: "+18005550000",
    });
    expect(res.body).toMatchObject({ decision: "admit", ani: null });
  });
});

describe("a call placed with the token", () => {
  it("is admitted by the token alone (no whitelist), recorded with origin dialer, and charged like any call", async () => {
    const owner = await dialerAccount();
    const { token } = bodyOf(await mint(owner), 200);
    const res = await dial(owner.account.id, token);
    expect(res.body).toMatchObject({
      decision: "admit",
      customer_id: owner.account.id,
      dialed: "14155550123",
      destination: { id: owner.destination.id, host: "pbx.customer.test" },
    });
    const callId = res.body.call_id;
    expect(await callRow(callId)).toMatchObject({
      origin: "dialer",
      src_ip: BROWSER,
      customer_id: owner.account.id,
      status: "ringing",
      ani: null,
    });
    expect(await sessionRow(owner.account.id)).toMatchObject({ call_id: callId });
    expect((await sessionRow(owner.account.id))!.used_at).not.toBeNull();

    const answeredAt = new Date(Date.now() - 61_000).toISOString();
    await node.event(callId, { type: "answered", at: answeredAt });
    const ended = await node.event(callId, {
      type: "ended",
      at: new Date().toISOString(),
      answered_at: answeredAt,
      sip_code: 200,
      hangup_by: "caller",
    });
    expect(ended.body).toMatchObject({ status: "completed" });
    expect(ended.body.billsec).toBeGreaterThanOrEqual(61);
    expect(ended.body.charged_amount).toBeGreaterThan(0);
    const listed = await owner.client.get("/api/calls?origin=dialer");
    expectStatus(listed, 200);
    expect(listed.body.items.map((c) => c.id)).toEqual([callId]);
    expect(listed.body.items[0]).toMatchObject({ origin: "dialer", hangup_by: "caller" });
  });

  it("is single use: the same token again is refused, with no record and no port", async () => {
    const owner = await dialerAccount();
    const { token } = bodyOf(await mint(owner), 200);
    const first = await dial(owner.account.id, token);
    expect(first.body.decision).toBe("admit");
    expect((await dial(owner.account.id, token)).body).toEqual(REFUSED);
    const live = await owner.client.get("/api/customer/live-calls");
    expectStatus(live, 200);
    expect(live.body.items).toHaveLength(1);
  });

  it("admits one call of two racing with one token", async () => {
    const owner = await dialerAccount();
    const { token } = bodyOf(await mint(owner), 200);
    const answers = await Promise.all([1, 2, 3].map(() => dial(owner.account.id, token)));
    expect(answers.filter((a) => a.body.decision === "admit")).toHaveLength(1);
    expect(answers.filter((a) => a.body.reason === "dialer_token_refused")).toHaveLength(2);
  });

  it("refuses an expired token", async () => {
    const owner = await dialerAccount();
    const { token } = bodyOf(await mint(owner), 200);
    await env.DB.prepare("UPDATE dialer_sessions SET expires_at = ? WHERE customer_id = ?")
      .bind(new Date(Date.now() - 1000).toISOString(), owner.account.id)
      .run();
    expect((await dial(owner.account.id, token)).body).toEqual(REFUSED);
  });

  it("refuses another account's token named for this account, and leaves it good for its own", async () => {
    const a = await dialerAccount();
    const b = await dialerAccount();
    const bToken: string = bodyOf(await mint(b), 200).token;
    const forged = `${a.account.id}.${bToken.split(".")[1]}`;
    expect((await dial(a.account.id, forged)).body).toEqual(REFUSED);
    expect((await dial(a.account.id, bToken)).body).toEqual(REFUSED);
    const calls = await a.client.get("/api/calls");
    expectStatus(calls, 200);
    expect(calls.body.total).toBe(0);
    expect((await dial(b.account.id, bToken)).body).toMatchObject({ decision: "admit", customer_id: b.account.id });
  });

  it("refuses a call without a token, with a token that is not one, and once the dialer is turned off", async () => {
    const owner = await dialerAccount();
    expect((await node.admit({ src_ip: BROWSER, dialed: "1415", origin: "dialer", customer_id: owner.account.id })).body).toEqual(REFUSED);
    expect((await dial(owner.account.id, "not-a-token")).body).toEqual(REFUSED);
    const { token } = bodyOf(await mint(owner), 200);
    await env.DB.prepare("UPDATE customers SET dialer_enabled = 0 WHERE id = ?").bind(owner.account.id).run();
    expect((await dial(owner.account.id, token)).body).toEqual(REFUSED);
  });

  it("takes a port like any call: with every port busy it is refused 503 no_free_port and recorded", async () => {
    const owner = await dialerAccount();
    await env.DB.prepare("UPDATE customers SET ports_override = 1 WHERE id = ?").bind(owner.account.id).run();
    await syncAdmissionState(testServices(), owner.account.id);
    // A refused token takes nothing: the one port is still free for the next call.
    expect((await dial(owner.account.id, `${owner.account.id}.${"x".repeat(43)}`)).body).toEqual(REFUSED);
    expect((await dial(owner.account.id, bodyOf(await mint(owner), 200).token)).body.decision).toBe("admit");
    const busy = await dial(owner.account.id, bodyOf(await mint(owner), 200).token);
    expect(busy.body).toMatchObject({ decision: "reject", sip_code: 503, reason: "no_free_port" });
    expect(await callRow(busy.body.call_id)).toMatchObject({ origin: "dialer", status: "rejected", sip_code: 503 });
  });
});

describe("the cron sweep", () => {
  it("removes tokens that lapsed unspent, and keeps the spent ones (who placed which call) and the live ones", async () => {
    const owner = await dialerAccount();
    const lapsed = bodyOf(await mint(owner), 200).token;
    const spent = bodyOf(await mint(owner), 200).token;
    expect((await dial(owner.account.id, spent)).body.decision).toBe("admit");
    const live = bodyOf(await mint(owner), 200).token;
    await env.DB.prepare(
      "UPDATE dialer_sessions SET expires_at = ? WHERE customer_id = ? AND used_at IS NULL AND id = (SELECT MIN(id) FROM dialer_sessions WHERE customer_id = ?)",
    )
      .bind(new Date(Date.now() - 1000).toISOString(), owner.account.id, owner.account.id)
      .run();
    await env.DB.prepare("UPDATE dialer_sessions SET expires_at = ? WHERE customer_id = ? AND used_at IS NOT NULL")
      .bind(new Date(Date.now() - 1000).toISOString(), owner.account.id)
      .run();
    await sweepLapsedDialerTokens(testServices(), new Date());
    const rows = await env.DB.prepare("SELECT used_at FROM dialer_sessions WHERE customer_id = ? ORDER BY id").bind(owner.account.id).all();
    expect(rows.results.map((r) => (r.used_at === null ? "unspent" : "spent"))).toEqual(["spent", "unspent"]);
    expect((await dial(owner.account.id, lapsed)).body).toEqual(REFUSED);
    expect((await dial(owner.account.id, live)).body.decision).toBe("admit");
  });
});

describe("GET /dialer", () => {
  it("serves the page under a CSP of our own origin and the node's WebSocket only, with no inline code and nothing from a CDN", async () => {
    const res = await request("GET", "/dialer");
    expectStatus(res, 200);
    expect(res.headers.get("content-type")).toMatch(/^text\/html/);
    expect(res.headers.get("content-security-policy")).toBe(
      "default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self' ws://127.0.0.1:5066; media-src 'self' blob:; " +
        "img-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'",
    );
    expect(res.headers.get("cache-control")).toBe("no-store");
    expect(res.headers.get("permissions-policy")).toBe("microphone=(self), camera=()");
    const html = res.body as string;
    expect(html).toContain('<script src="/dialer-assets/vendor/jssip.js" defer></script>');
    expect(html).toContain('<script src="/dialer-assets/dialer.js" defer></script>');
    expect([...html.matchAll(/<script(?![^>]*\ssrc="\/dialer-assets\/)/g)]).toEqual([]);
    expect(html).not.toMatch(/<style|\sstyle="|\son[a-z]+="/i);
    expect(html).not.toMatch(/(src|href)="(https?:)?\/\//i);
  });
});
