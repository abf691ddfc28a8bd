// The local mail view (worker/pages/mail.ts): what `npm start` shows a developer of the
// embedded outbox, at /dev/mail (HTML) and /dev/mail.json. Requests go through the real Worker
// entry with the flag `npm start` sets (LOCAL_MAIL_VIEW=true) and, as from this machine, without
// CF-Connecting-IP (a request made inside the runtime) or with a loopback one (what wrangler dev
// sets for a local client). The flag off, or any other address, is the app's plain 404.
import { createExecutionContext, env, waitOnExecutionContext } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import worker from "../../../worker/index.ts";
import { as, bodyOf, expectStatus, request } from "../fixtures/client.ts";
import { createAccount, newPassword, signIn, testServices, uniqueEmail } from "../fixtures/factory.ts";

const localBindings = { ...env, LOCAL_MAIL_VIEW: "true" };

/** A GET through the Worker entry, as `npm start` runs it (flag on unless told). */
async function view(path: string, { ip, bindings = localBindings }: { ip?: string; bindings?: typeof env } = {}) {
  const headers = new Headers(ip === undefined ? {} : { "CF-Connecting-IP": ip });
  const ctx = createExecutionContext();
  const res = await worker.fetch(new Request(`http://127.0.0.1:8787${path}`, { headers }), bindings, ctx);
  await waitOnExecutionContext(ctx);
  return res;
}

async function mailJson(path: string, ip?: string): Promise<any> {
  const res = await view(path, { ip });
  expect(res.status).toBe(200);
  expect(res.headers.get("content-type")).toContain("application/json");
  return res.json();
}

describe("local mail view", () => {
  it("shows an invitation's temporary password, which signs in and must be changed", async () => {
    const owner = await createAccount();
    const email = uniqueEmail("invited");
    const invite = await owner.client.post("/api/customer/users", { email, name: "Ada" });
    expectStatus(invite, 201);
    expect(invite.body.welcome_email).toEqual({ sent: false, error: null, skipped_reason: "mail_not_configured" });

    // What `npm run mail -- --to <email>` reads.
    const { messages } = await mailJson(`/dev/mail.json?to=${encodeURIComponent(email)}`);
    expect(messages).toHaveLength(1);
    expect(messages[0]).toMatchObject({ to: [email], subject: "Your call-screening account" });
    expect(Number.isNaN(Date.parse(messages[0].created_at))).toBe(false);
    const temporary = /temporary password (\S+)/.exec(messages[0].text)![1]!;

    // The page a person opens shows the same message.
    const page = await view(`/dev/mail?to=${encodeURIComponent(email)}`);
    expect(page.status).toBe(200);
    expect(page.headers.get("content-type")).toContain("text/html");
    const html = await page.text();
    expect(html).toContain("Your call-screening account");
    expect(html).toContain(temporary);

    // The temporary password signs in, and only to change it.
    const member = as({ token: await signIn(email, temporary) });
    expect((await member.get("/api/auth/me")).body).toMatchObject({ must_change_password: true });
    const blocked = await member.get("/api/customer/users");
    expectStatus(blocked, 403);
    expect(blocked.body).toEqual({ detail: "password_change_required" });
    const password = newPassword();
    expect((await member.post("/api/auth/change-password", { current_password: temporary, new_password: password })).status).toBe(204);
    const fresh = as({ token: await signIn(email, password) });
    expect(bodyOf(await fresh.get("/api/auth/me"), 200).must_change_password).toBe(false);
    expect((await fresh.get("/api/customer/users")).status).toBe(200);
  });

  it("lists the newest first, from a loopback address too, and honours limit", async () => {
    const to = uniqueEmail("reader");
    const { mail } = testServices();
    for (const subject of ["first", "second", "third"]) await mail.send({ to: [to], subject, text: `the ${subject} message` });
    for (const ip of [undefined, "127.0.0.1", "::1"]) {
      const { messages } = await mailJson(`/dev/mail.json?to=${encodeURIComponent(to)}`, ip);
      expect(messages.map((m: any) => m.subject)).toEqual(["third", "second", "first"]);
    }
    const latest = await mailJson(`/dev/mail.json?to=${encodeURIComponent(to)}&limit=1`);
    expect(latest.messages).toEqual([
      { id: expect.any(String), to: [to], subject: "third", text: "the third message", created_at: expect.any(String) },
    ]);
    // Without a filter every recipient's mail is listed, this one's among the newest.
    const all = await mailJson("/dev/mail.json");
    expect(all.messages[0].subject).toBe("third");
  });

  it("escapes what it shows", async () => {
    const to = uniqueEmail("escape");
    await testServices().mail.send({ to: [to], subject: "<script>alert(1)</script>", text: 'a & b <img src=x onerror="x()">' });
    const page = await view(`/dev/mail?to=${encodeURIComponent(to)}`);
    const html = await page.text();
    expect(html).not.toContain("<script>alert");
    expect(html).not.toContain("<img");
    expect(html).toContain("&#60;script&#62;alert(1)&#60;/script&#62;");
    expect(html).toContain("a &#38; b &#60;img src=x onerror=&#34;x()&#34;&#62;");
    expect(page.headers.get("content-security-policy")).toContain("default-src 'none'");
    expect(page.headers.get("cache-control")).toBe("no-store");
  });

  it("keeps an alert rule's test e-mail for the view, where mail sending is not configured", async () => {
    const owner = await createAccount();
    const rule = await owner.client.post("/api/customer/alert-rules", { name: "NOC", recipients: ["noc@carrier.test"] });
    expectStatus(rule, 201);
    const ctx = createExecutionContext();
    const res = await worker.fetch(
      new Request(`http://127.0.0.1:8787/api/customer/alert-rules/${rule.body.id}/test`, {
        method: "POST",
        headers: { Authorization: `Bearer ${owner.token}` },
      }),
      localBindings,
      ctx,
    );
    await waitOnExecutionContext(ctx);
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({
      sent: false,
      error: "local_mail_view",
      latency_ms: expect.any(Number),
      recipients: ["noc@carrier.test"],
      channels: [],
    });
    const { messages } = await mailJson(`/dev/mail.json?to=noc%40carrier.test`);
    expect(messages.map((m: { subject: string }) => m.subject)).toEqual(["[Call Shield] Test alert: NOC"]);
    // Without the view (a deployed Worker with the outbox), nothing can be tried: 409 no_delivery.
    expect(await owner.client.post(`/api/customer/alert-rules/${rule.body.id}/test`)).toMatchObject({ status: 409 });
  });

  it("answers 404 when the flag is off", async () => {
    for (const path of ["/dev/mail", "/dev/mail.json"]) {
      const res = await view(path, { bindings: env });
      expect(res.status).toBe(404);
      expect(await res.json()).toEqual({ detail: "Not Found" });
    }
    // The deployed configuration (wrangler.toml) as the test client reaches it.
    expect((await request("GET", "/dev/mail.json")).status).toBe(404);
  });

  it("answers 404 to a request that is not from loopback", async () => {
    for (const ip of ["203.0.113.9", "10.0.0.1", "192.168.1.20", "::ffff:10.0.0.1", "2001:db8::1", "127.0.0.1.example.net"]) {
      for (const path of ["/dev/mail", "/dev/mail.json"]) {
        const res = await view(path, { ip });
        expect(res.status, `${path} from ${ip}`).toBe(404);
        expect(await res.json()).toEqual({ detail: "Not Found" });
      }
    }
  });
});
