// Sharing a call (spec "Sharing a call" and the share-link rows of its state table): links with
// an unguessable token and a generated password kept only as a hash; meta, unlock and the view
// token scoped to one link; the public payload (only what the spec lists) and its recording;
// revoke, rotate, expiry, view counts, throttled unlocking, and the no-store/no-referrer headers.
import { env } from "cloudflare:test";
import { describe, expect, it, vi } from "vitest";
import { stereoWav } from "../fixtures/call.ts";
import { addTranscript, giveVerdict, insertCall } from "../fixtures/call-record.ts";
import { bodyOf, expectStatus, issuesOf, type Reply, request } from "../fixtures/client.ts";
import { createAccount, type Session } from "../fixtures/factory.ts";

const INVALID = { detail: "Invalid link or password" };
const GONE = { detail: "This link is no longer available" };

/** A call of the owner's with a verdict, a transcript and a recording in R2. */
async function sharedCall(owner: Session) {
  const key = `recordings/${crypto.randomUUID()}.wav`;
  await env.MEDIA.put(key, stereoWav(1, { caller: "talk", callee: "talk" }));
  const call = await insertCall(owner, {
    ani: "+14155550100",
    dialed: "18005550199",
    recording_available: true,
    recording_wav_path: key,
  });
  await giveVerdict(owner, call, {
    probability: 94,
    category: "credit_card_scam",
    recommendation: "block",
    title: "Fake Visa fraud desk",
    entity: "Visa",
    red_flags: ["asks for the card PIN"],
    summary: "Caller claimed the card was blocked.",
    tcpa_comment: "No consent recorded.",
  });
  await addTranscript(owner, call.id, { text: "This is Visa security, read me your PIN." });
  return call;
}

async function share(owner: Session, callId: string, body: Record<string, unknown> = {}) {
  const res = await owner.client.post(`/api/calls/${callId}/share`, body);
  expectStatus(res, 201);
  return { ...res.body, token: new URL(res.body.url).pathname.split("/").pop() as string };
}

const unlock = (token: string, password: string, ip?: string) =>
  request("POST", `/api/public/shares/${token}/unlock`, { body: { password }, headers: ip ? { "CF-Connecting-IP": ip } : {} });

async function viewTokenOf(token: string, password: string): Promise<string> {
  return bodyOf(await unlock(token, password), 200).view_token;
}

const view = (token: string, viewToken?: string) =>
  request("GET", `/api/public/shares/${token}`, { headers: viewToken ? { "X-Share-Token": viewToken } : {} });
const recording = (token: string, viewToken: string, headers: Record<string, string> = {}) =>
  request("GET", `/api/public/shares/${token}/recording?t=${encodeURIComponent(viewToken)}`, { headers });

function expectShareHeaders(res: Reply, what: string) {
  expect(res.headers.get("cache-control"), what).toBe("no-store");
  expect(res.headers.get("referrer-policy"), what).toBe("no-referrer");
}

describe("POST /calls/{id}/share", () => {
  it("makes a link with a 256-bit token and a generated password stored only as a hash", async () => {
    const owner = await createAccount();
    const call = await sharedCall(owner);
    const before = Date.now();
    const made = await share(owner, call.id, { label: "For the Visa fraud desk" });
    expect(made).toMatchObject({
      call_id: call.id,
      label: "For the Visa fraud desk",
      created_by: owner.email,
      revoked_at: null,
      last_viewed_at: null,
      view_count: 0,
      active: true,
    });
    expect(made.url).toMatch(/^https:\/\/api\.test\/share\/[A-Za-z0-9_-]{43}$/);
    expect(made.password).toMatch(/^[A-HJ-NP-Z2-9]{4}(-[A-HJ-NP-Z2-9]{4}){3}$/);
    // Left out, expires_in_hours is a week.
    const expires = Date.parse(made.expires_at ?? "") - before;
    expect(expires).toBeGreaterThan(168 * 3_600_000 - 60_000);
    expect(expires).toBeLessThan(168 * 3_600_000 + 60_000);

    const row = await env.DB.prepare("SELECT * FROM call_shares WHERE id = ?").bind(made.id).first<Record<string, unknown>>();
    const stored = JSON.stringify(row);
    expect(stored).not.toContain(made.password);
    expect(stored).not.toContain(made.password.replace(/-/g, ""));
    expect(stored).not.toContain(made.token);
    expect(String(row!.password_hash)).toMatch(/^pbkdf2-sha256\$/);
  });

  it("takes expires_in_hours, or null for a link that never expires; each link has its own token and password", async () => {
    const owner = await createAccount();
    const call = await sharedCall(owner);
    const hour = await share(owner, call.id, { expires_in_hours: 1 });
    expect(Math.abs(Date.parse(hour.expires_at ?? "") - Date.now() - 3_600_000)).toBeLessThan(60_000);
    const forever = await share(owner, call.id, { expires_in_hours: null });
    expect(forever.expires_at).toBeNull();
    expect(forever.token).not.toBe(hour.token);
    expect(forever.password).not.toBe(hour.password);
  });

  it("answers 422 for an expiry out of range and 404 for another account's call, storing nothing", async () => {
    const owner = await createAccount();
    const call = await sharedCall(owner);
    for (const hours of [0, 8761, 1.5, "24"]) {
      const res = await owner.client.post(`/api/calls/${call.id}/share`, { expires_in_hours: hours });
      expectStatus(res, 422, String(hours));
      expect(issuesOf(res.body)[0]?.loc).toEqual(["body", "expires_in_hours"]);
    }
    const theirs = await sharedCall(await createAccount());
    const res = await owner.client.post(`/api/calls/${theirs.id}/share`, {});
    expectStatus(res, 404);
    expect(res.body).toEqual({ detail: "Call not found" });
    const n = await env.DB.prepare("SELECT COUNT(*) AS n FROM call_shares WHERE customer_id = ?")
      .bind(owner.account.id)
      .first<{ n: number }>();
    expect(n!.n).toBe(0);
  });
});

describe("GET /calls/{id}/shares", () => {
  it("lists the call's links newest first, with their URL and no password", async () => {
    const owner = await createAccount();
    const call = await sharedCall(owner);
    const first = await share(owner, call.id);
    const second = await share(owner, call.id);
    const res = await owner.client.get(`/api/calls/${call.id}/shares`);
    expectStatus(res, 200);
    expect(res.body.items.map((s) => s.id)).toEqual([second.id, first.id]);
    expect(res.body.items[1]?.url).toBe(first.url);
    const text = JSON.stringify(res.body);
    expect(text).not.toContain(first.password);
    expect(text).not.toContain(second.password);
    expect(res.body.items.every((s) => !("password" in s))).toBe(true);
    expect((await (await createAccount()).client.get(`/api/calls/${call.id}/shares`)).status).toBe(404);
  });
});

describe("meta and unlock", () => {
  it("tells whether a link opens and who shared it; an unknown token exists not", async () => {
    const owner = await createAccount({ company: "Northwind Telecom" });
    const made = await share(owner, (await sharedCall(owner)).id);
    const meta = await request("GET", `/api/public/shares/${made.token}/meta`);
    expectStatus(meta, 200);
    expect(meta.body).toEqual({ exists: true, requires_password: true, revoked: false, expired: false, company_name: "Northwind Telecom" });
    const unknown = await request("GET", "/api/public/shares/not-a-token/meta");
    expect(unknown.body).toEqual({ exists: false, requires_password: true, revoked: false, expired: false, company_name: null });
  });

  it("answers 401 to a wrong password, and a view token to the right one (case, spaces and dashes aside)", async () => {
    const owner = await createAccount();
    const made = await share(owner, (await sharedCall(owner)).id);
    const wrong = await unlock(made.token, "AAAA-BBBB-CCCC-DDDD");
    expect(wrong.status).toBe(401);
    expect(wrong.body).toEqual(INVALID);
    const right = await unlock(made.token, made.password);
    expectStatus(right, 200);
    expect(right.body.expires_in).toBe(900);
    expect(right.body.view_token).toEqual(expect.any(String));
    const typed = await unlock(made.token, ` ${made.password.toLowerCase().replace(/-/g, " ")} `);
    expect(typed.status).toBe(200);
    expect((await unlock("no-such-token", made.password)).body).toEqual(INVALID);
  });

  it("throttles password attempts per link: 429 too_many_attempts with Retry-After, even for the right password", async () => {
    const owner = await createAccount();
    const made = await share(owner, (await sharedCall(owner)).id);
    for (let i = 0; i < 10; i++) expect((await unlock(made.token, `WRONG-${i}`)).status).toBe(401);
    const limited = await unlock(made.token, made.password);
    expect(limited.status).toBe(429);
    expect(limited.body).toEqual({ detail: "too_many_attempts" });
    expect(Number(limited.headers.get("retry-after"))).toBeGreaterThan(0);
    expectShareHeaders(limited, "429");
  });

  it("throttles password attempts per source address across links", async () => {
    const ip = "203.0.113.77";
    const answers = [];
    for (let i = 0; i < 31; i++) answers.push((await unlock(`guess-${i}-${crypto.randomUUID()}`, "AAAA-BBBB-CCCC-DDDD", ip)).status);
    expect(answers.slice(0, 30)).toEqual(Array(30).fill(401));
    expect(answers[30]).toBe(429);
    // Another address is not held back.
    expect((await unlock(`guess-${crypto.randomUUID()}`, "AAAA", "203.0.113.78")).status).toBe(401);
  });
});

describe("the public payload and recording", () => {
  it("shows only what the spec lists, and counts views", async () => {
    const owner = await createAccount({ company: "Northwind Telecom" });
    const call = await sharedCall(owner);
    const made = await share(owner, call.id, { label: "Case 12" });
    const viewToken = await viewTokenOf(made.token, made.password);
    const res = await view(made.token, viewToken);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      shared_by: "Northwind Telecom",
      shared_at: made.created_at,
      label: "Case 12",
      expires_at: made.expires_at,
      call: { dialed: "18005550199", ani: "+14155550100", direction: "inbound", started_at: call.started_at, duration_sec: 30 },
      analysis: {
        title: "Fake Visa fraud desk",
        probability: 94,
        category: "credit_card_scam",
        entity: "Visa",
        red_flags: ["asks for the card PIN"],
        tcpa_comment: "No consent recorded.",
        summary: "Caller claimed the card was blocked.",
        recommendation: "block",
      },
      transcript: { text: "This is Visa security, read me your PIN.", segments: expect.any(Array) },
      has_recording: true,
    });
    const text = JSON.stringify(res.body);
    for (const secret of [owner.account.id, owner.email, call.id, call.sip_call_id as string, "secret-model-7b", "203.0.113.10"]) {
      expect(text).not.toContain(secret);
    }
    // `t` works as well as the header; each read is a view.
    expect((await request("GET", `/api/public/shares/${made.token}?t=${encodeURIComponent(viewToken)}`)).status).toBe(200);
    const listed = bodyOf(await owner.client.get(`/api/calls/${call.id}/shares`), 200).items[0];
    expect(listed?.view_count).toBe(2);
    expect(Date.parse(listed?.last_viewed_at ?? "")).toBeGreaterThan(Date.now() - 60_000);
  });

  it("answers 401 without a view token or with a bad one", async () => {
    const owner = await createAccount();
    const made = await share(owner, (await sharedCall(owner)).id);
    expect((await view(made.token)).status).toBe(401);
    expect((await view(made.token, "not-a-token")).body).toEqual(INVALID);
    // The owner's own access token is not a view token.
    expect((await view(made.token, owner.token)).status).toBe(401);
    expect((await view("no-such-token", "x")).status).toBe(401);
  });

  it("serves the recording whole and by byte range under the view token", async () => {
    const owner = await createAccount();
    const made = await share(owner, (await sharedCall(owner)).id);
    const viewToken = await viewTokenOf(made.token, made.password);
    const whole = await recording(made.token, viewToken);
    expect(whole.status).toBe(200);
    expect(whole.headers.get("content-type")).toBe("audio/wav");
    expectShareHeaders(whole, "recording");
    const part = await recording(made.token, viewToken, { Range: "bytes=0-43" });
    expect(part.status).toBe(206);
    expect(part.headers.get("content-range")).toMatch(/^bytes 0-43\/\d+$/);
    expect((await request("GET", `/api/public/shares/${made.token}/recording`)).status).toBe(401);
  });

  it("never opens another call's payload or recording with one link's view token", async () => {
    const owner = await createAccount();
    const [one, two] = [await sharedCall(owner), await sharedCall(owner)];
    const a = await share(owner, one.id);
    const b = await share(owner, two.id);
    const aView = await viewTokenOf(a.token, a.password);
    expect((await view(b.token, aView)).status).toBe(401);
    expect((await recording(b.token, aView)).status).toBe(401);
    // Nor does a recording token of the call itself open the link.
    const minted = await owner.client.get(`/api/calls/${two.id}/recording-token`);
    expectStatus(minted, 200);
    const mediaToken = new URL(minted.body.url).searchParams.get("t")!;
    expect((await view(b.token, mediaToken)).status).toBe(401);
    expect((await recording(b.token, mediaToken)).status).toBe(401);
    // And a link of another account's call with this view token stays shut.
    const other = await createAccount();
    const c = await share(other, (await sharedCall(other)).id);
    expect((await view(c.token, aView)).status).toBe(401);
  });
});

describe("DELETE /calls/shares/{id}", () => {
  it("stops the link at once: views already unlocked get 404, unlock 401, meta says revoked", async () => {
    const owner = await createAccount();
    const made = await share(owner, (await sharedCall(owner)).id);
    const viewToken = await viewTokenOf(made.token, made.password);
    expect((await view(made.token, viewToken)).status).toBe(200);

    const revoked = await owner.client.delete(`/api/calls/shares/${made.id}`);
    expectStatus(revoked, 200);
    expect(revoked.body).toMatchObject({ id: made.id, active: false });
    expect(revoked.body.revoked_at).toEqual(expect.any(String));

    const after = await view(made.token, viewToken);
    expect(after.status).toBe(404);
    expect(after.body).toEqual(GONE);
    expect((await recording(made.token, viewToken)).status).toBe(404);
    expect((await unlock(made.token, made.password)).status).toBe(401);
    expect((await request("GET", `/api/public/shares/${made.token}/meta`)).body).toMatchObject({ exists: true, revoked: true });
    // Revoking again changes nothing.
    expect(bodyOf(await owner.client.delete(`/api/calls/shares/${made.id}`), 200).revoked_at).toBe(revoked.body.revoked_at);
  });

  it("answers 404 Share link not found for another account's link", async () => {
    const owner = await createAccount();
    const theirs = await createAccount();
    const made = await share(theirs, (await sharedCall(theirs)).id);
    const res = await owner.client.delete(`/api/calls/shares/${made.id}`);
    expectStatus(res, 404);
    expect(res.body).toEqual({ detail: "Share link not found" });
    expect((await unlock(made.token, made.password)).status).toBe(200);
  });
});

describe("POST /calls/shares/{id}/rotate", () => {
  it("gives a new password once; the old password and its views stop working", async () => {
    const owner = await createAccount();
    const made = await share(owner, (await sharedCall(owner)).id);
    const oldView = await viewTokenOf(made.token, made.password);
    const rotated = await owner.client.post(`/api/calls/shares/${made.id}/rotate`);
    expectStatus(rotated, 200);
    expect(rotated.body).toMatchObject({ id: made.id, url: made.url, active: true });
    expect(rotated.body.password).not.toBe(made.password);
    expect((await unlock(made.token, made.password)).status).toBe(401);
    expect((await view(made.token, oldView)).status).toBe(401);
    expect((await view(made.token, await viewTokenOf(made.token, rotated.body.password))).status).toBe(200);
    expect(JSON.stringify((await owner.client.get(`/api/calls/${made.call_id}/shares`)).body)).not.toContain(rotated.body.password);
  });

  it("answers 409 for a revoked or an expired link, leaving it unchanged", async () => {
    const owner = await createAccount();
    const call = await sharedCall(owner);
    const revoked = await share(owner, call.id);
    await owner.client.delete(`/api/calls/shares/${revoked.id}`);
    const expired = await share(owner, call.id, { expires_in_hours: 1 });
    await env.DB.prepare("UPDATE call_shares SET expires_at = ? WHERE id = ?")
      .bind(new Date(Date.now() - 1000).toISOString(), expired.id)
      .run();
    for (const made of [revoked, expired]) {
      const res = await owner.client.post(`/api/calls/shares/${made.id}/rotate`);
      expectStatus(res, 409);
      expect(res.body).toEqual({ detail: "This link is revoked or expired" });
    }
    expect((await request("GET", `/api/public/shares/${expired.token}/meta`)).body).toMatchObject({ expired: true, revoked: false });
    expect((await unlock(expired.token, expired.password)).status).toBe(401);
    expect(bodyOf(await owner.client.get(`/api/calls/${call.id}/shares`), 200).items[0]?.active).toBe(false);
    expect((await owner.client.post(`/api/calls/shares/${crypto.randomUUID()}/rotate`)).status).toBe(404);
  });

  it("keeps an expired link shut to a view token unlocked before it expired", async () => {
    const owner = await createAccount();
    const made = await share(owner, (await sharedCall(owner)).id);
    const viewToken = await viewTokenOf(made.token, made.password);
    await env.DB.prepare("UPDATE call_shares SET expires_at = ? WHERE id = ?")
      .bind(new Date(Date.now() - 1000).toISOString(), made.id)
      .run();
    expect((await view(made.token, viewToken)).body).toEqual(GONE);
  });
});

describe("every share answer", () => {
  it("carries Cache-Control: no-store and Referrer-Policy: no-referrer, errors included", async () => {
    const owner = await createAccount();
    const call = await sharedCall(owner);
    const made = await share(owner, call.id);
    const created = await owner.client.post(`/api/calls/${call.id}/share`, {});
    expectStatus(created, 201);
    expectShareHeaders(created, "create");
    expectShareHeaders(await owner.client.get(`/api/calls/${call.id}/shares`), "list");
    expectShareHeaders(await owner.client.post(`/api/calls/shares/${made.id}/rotate`), "rotate");
    expectShareHeaders(await owner.client.delete(`/api/calls/shares/${created.body.id}`), "revoke");
    expectShareHeaders(await request("GET", `/api/public/shares/${made.token}/meta`), "meta");
    expectShareHeaders(await unlock(made.token, "wrong"), "unlock 401");
    expectShareHeaders(await view(made.token), "view 401");
    expectShareHeaders(await owner.client.post(`/api/calls/shares/${created.body.id}/rotate`), "rotate 409");
  });

  it("never writes the password to a log", async () => {
    const lines: string[] = [];
    const capture = (...args: unknown[]) => void lines.push(args.map((a) => (typeof a === "string" ? a : JSON.stringify(a))).join(" "));
    const spies = (["log", "info", "warn", "error", "debug"] as const).map((level) => vi.spyOn(console, level).mockImplementation(capture));
    try {
      const owner = await createAccount();
      const made = await share(owner, (await sharedCall(owner)).id);
      await unlock(made.token, made.password);
      await unlock(made.token, "wrong");
      const rotated = await owner.client.post(`/api/calls/shares/${made.id}/rotate`);
      expectStatus(rotated, 200);
      for (const password of [made.password, rotated.body.password]) expect(lines.join("\n")).not.toContain(password);
    } finally {
      for (const spy of spies) spy.mockRestore();
    }
  });
});
