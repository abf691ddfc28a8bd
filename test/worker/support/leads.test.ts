// POST /public/leads: a setup-call request is stored and mailed to the service team; a bot that
// fills in the honeypot gets the same answer and leaves nothing; a source address is throttled.
import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { expectStatus, issuesOf, request } from "../fixtures/client.ts";
import { latestMailTo, uniqueEmail } from "../fixtures/factory.ts";

const SERVICE_TEAM = "service-team@call-shield.example";

const send = (body: Record<string, unknown>, ip = `198.18.${Math.floor(Math.random() * 250)}.${Math.floor(Math.random() * 250) + 1}`) =>
  request("POST", "/api/public/leads", { body, headers: { "CF-Connecting-IP": ip } });

const leadsFrom = (email: string) => env.DB.prepare("SELECT * FROM leads WHERE email = ?").bind(email).all<Record<string, any>>();

describe("POST /public/leads", () => {
  it("stores the request and mails it to the service team", async () => {
    const email = uniqueEmail("lead");
    const ip = "198.18.7.7";
    const res = await send(
      {
        name: "Grace Hopper",
        email,
        company: "Northwind Telecom",
        platform: "Kamailio",
        volume: "2M minutes a month",
        message: "We see Visa impersonation calls every day.",
        page: "/pricing",
        attribution: { utm_source: "newsletter", utm_campaign: "fraud-week" },
      },
      ip,
    );
    expect(res.status).toBe(202);
    expect(res.body).toEqual({ accepted: true });
    const { results } = await leadsFrom(email);
    expect(results).toHaveLength(1);
    expect(results[0]).toMatchObject({
      name: "Grace Hopper",
      company: "Northwind Telecom",
      platform: "Kamailio",
      volume: "2M minutes a month",
      page: "/pricing",
      website: null,
    });
    expect(JSON.parse(results[0]!.attribution)).toEqual({ utm_source: "newsletter", utm_campaign: "fraud-week" });
    expect(results[0]!.source_ip_hash).toMatch(/^[0-9a-f]{64}$/);
    expect(JSON.stringify(results[0])).not.toContain(ip);
    expect(results[0]!.notified_at).toEqual(expect.any(String));
    const mail = await latestMailTo(SERVICE_TEAM);
    for (const text of [
      "Grace Hopper",
      email,
      "Northwind Telecom",
      "Kamailio",
      "We see Visa impersonation calls every day.",
      "utm_source=newsletter",
    ]) {
      expect(mail).toContain(text);
    }
  });

  it("answers a filled-in honeypot as accepted, and stores and mails nothing", async () => {
    const email = uniqueEmail("bot");
    const before = await env.DB.prepare("SELECT COUNT(*) AS n FROM outbox_emails").first<{ n: number }>();
    const res = await send({ name: "Bot", email, website: "https://spam.example" });
    expect(res.status).toBe(202);
    expect(res.body).toEqual({ accepted: true });
    expect((await leadsFrom(email)).results).toHaveLength(0);
    expect(await env.DB.prepare("SELECT COUNT(*) AS n FROM outbox_emails").first<{ n: number }>()).toEqual(before);
  });

  it("refuses a bad request with 422 naming the field, storing nothing", async () => {
    const email = uniqueEmail("bad");
    for (const [body, field] of [
      [{ email }, "name"],
      [{ name: "Ada", email: "not-an-email" }, "email"],
      [{ name: "Ada", email, attribution: Object.fromEntries(Array.from({ length: 21 }, (_, i) => [`k${i}`, "v"])) }, "attribution"],
      [{ name: "Ada", email, attribution: { nested: { deep: true } } }, "attribution"],
    ] as const) {
      const res = await send(body);
      expectStatus(res, 422, JSON.stringify(body));
      expect(issuesOf(res.body)[0]?.loc.slice(0, 2)).toEqual(["body", field]);
    }
    expect((await leadsFrom(email)).results).toHaveLength(0);
  });

  it("throttles a source address: the sixth request within the hour is 429 with Retry-After", async () => {
    const ip = "198.18.200.9";
    for (let i = 0; i < 5; i++) expect((await send({ name: `Lead ${i}`, email: uniqueEmail("lead") }, ip)).status).toBe(202);
    const email = uniqueEmail("lead");
    const limited = await send({ name: "One too many", email }, ip);
    expect(limited.status).toBe(429);
    expect(limited.body).toEqual({ detail: "Too many requests, try again later" });
    expect(Number(limited.headers.get("retry-after"))).toBeGreaterThan(0);
    expect((await leadsFrom(email)).results).toHaveLength(0);
    // Bots are counted too, and another address is not held back.
    expect((await send({ name: "Bot", email: uniqueEmail("bot"), website: "x" }, ip)).status).toBe(429);
    expect((await send({ name: "Other", email: uniqueEmail("lead") }, "198.18.200.10")).status).toBe(202);
  });
});
