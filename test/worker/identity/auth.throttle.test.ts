// Spec rule 3: login throttling per source address (failed attempts, and a far higher ceiling
// for every attempt) and per e-mail (wrong passwords only), and signup throttling per source.
// Production defaults (wrangler.toml): 10 wrong passwords per e-mail, 50 failed and 1,000 attempts
// in all per address, each per 15 minutes; 5 signups per address per hour.
import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { newApp } from "../../../worker/app.ts";
import { request } from "../fixtures/client.ts";
import { createAccount, newPassword, uniqueEmail } from "../fixtures/factory.ts";

const login = (email: string, password: string, ip = `203.0.113.${Math.floor(Math.random() * 254) + 1}`) =>
  request("POST", "/api/auth/login", { body: { email, password }, headers: { "CF-Connecting-IP": ip } });

describe("login throttling per e-mail", () => {
  it("locks an e-mail after 10 wrong passwords, from any address, with Retry-After", async () => {
    const owner = await createAccount();
    for (let i = 0; i < 10; i++) expect((await login(owner.email, newPassword())).status).toBe(401);
    const locked = await login(owner.email, owner.password);
    expect(locked.status).toBe(429);
    expect(locked.body).toEqual({ detail: "too_many_attempts" });
    const retryAfter = Number(locked.headers.get("Retry-After"));
    expect(retryAfter).toBeGreaterThan(0);
    expect(retryAfter).toBeLessThanOrEqual(900);
  });

  it("answers the 11th wrong password for one e-mail 429", async () => {
    const owner = await createAccount();
    const replies = [];
    for (let i = 0; i < 11; i++) replies.push((await login(owner.email, newPassword())).status);
    expect(replies).toEqual([...Array<number>(10).fill(401), 429]);
  });

  it("counts only wrong passwords against the e-mail, and a success clears the count", async () => {
    const owner = await createAccount();
    for (let i = 0; i < 9; i++) await login(owner.email, newPassword());
    expect((await login(owner.email, owner.password)).status).toBe(200);
    for (let i = 0; i < 9; i++) expect((await login(owner.email, newPassword())).status).toBe(401);
    expect((await login(owner.email, owner.password)).status).toBe(200);
  });

  it("throttles unknown e-mails the same way, so the limit reveals nothing", async () => {
    const email = uniqueEmail("ghost");
    for (let i = 0; i < 10; i++) expect((await login(email, newPassword())).status).toBe(401);
    expect((await login(email, newPassword())).status).toBe(429);
  });
});

describe("login throttling per source address", () => {
  it("lets an office behind one address sign in 100 times in a minute", { timeout: 120_000 }, async () => {
    const ip = "192.0.2.10";
    const staff = await Promise.all([createAccount(), createAccount(), createAccount(), createAccount()]);
    const started = Date.now();
    const statuses: number[] = [];
    // Four colleagues at a time, 25 rounds: 100 correct sign-ins, all from the office's address.
    for (let round = 0; round < 25; round++) {
      const replies = await Promise.all(staff.map((s) => login(s.email, s.password, ip)));
      statuses.push(...replies.map((r) => r.status));
    }
    expect(Date.now() - started).toBeLessThan(60_000);
    expect(statuses).toEqual(Array<number>(100).fill(200));
    // A few typos among them are failures, not a lock-out.
    for (let i = 0; i < 3; i++) expect((await login(staff[0]!.email, newPassword(), ip)).status).toBe(401);
    expect((await login(staff[0]!.email, staff[0]!.password, ip)).status).toBe(200);
  });

  it("throttles a flood of wrong passwords from one address across many e-mails", async () => {
    const ip = "192.0.2.77";
    const replies = [];
    for (let i = 0; i < 51; i++) replies.push((await login(uniqueEmail("spray"), newPassword(), ip)).status);
    expect(replies.slice(0, 50).every((s) => s === 401)).toBe(true);
    expect(replies[50]).toBe(429);
    // The address is refused even with a right password (no e-mail reaches its own limit)...
    const owner = await createAccount();
    const refused = await login(owner.email, owner.password, ip);
    expect(refused.status).toBe(429);
    expect(Number(refused.headers.get("Retry-After"))).toBeGreaterThan(0);
    // ...while another address is unaffected.
    expect((await login(owner.email, owner.password, "192.0.2.78")).status).toBe(200);
  });

  it("holds the ceiling on every attempt from one address, successful ones included", async () => {
    // The production ceiling is 1,000 per 15 minutes; the same rule with a ceiling of 5.
    const app = newApp();
    const bindings = { ...env, LOGIN_IP_MAX_ATTEMPTS: "5" };
    const ip = "192.0.2.150";
    const owner = await createAccount();
    const attempt = (password: string) =>
      app.request(
        "/api/auth/login",
        {
          method: "POST",
          headers: { "content-type": "application/json", "CF-Connecting-IP": ip },
          body: JSON.stringify({ email: owner.email, password }),
        },
        bindings,
      );
    const statuses = [];
    for (let i = 0; i < 4; i++) statuses.push((await attempt(owner.password)).status);
    statuses.push((await attempt(newPassword())).status);
    const over = await attempt(owner.password);
    expect(statuses).toEqual([200, 200, 200, 200, 401]);
    expect(over.status).toBe(429);
    expect(await over.json()).toEqual({ detail: "too_many_attempts" });
    expect(Number(over.headers.get("Retry-After"))).toBeGreaterThan(0);
  });
});

describe("signup throttling", () => {
  it("allows 5 signups per address per hour, then 429 with Retry-After, creating nothing", async () => {
    const ip = "192.0.2.200";
    const signup = (email: string) =>
      request("POST", "/api/auth/signup", { body: { email, password: newPassword() }, headers: { "CF-Connecting-IP": ip } });
    for (let i = 0; i < 5; i++) expect((await signup(uniqueEmail("bulk"))).status).toBe(201);
    const email = uniqueEmail("bulk");
    const refused = await signup(email);
    expect(refused.status).toBe(429);
    expect(Number(refused.headers.get("Retry-After"))).toBeGreaterThan(0);
    expect((await login(email, newPassword())).status).toBe(401);
  });
});

describe("login throttling holds under bursts and IPv6 (issue 20, finding 12)", () => {
  it("lets no more than 10 wrong passwords for one e-mail through a parallel burst", async () => {
    const owner = await createAccount();
    const replies = await Promise.all(Array.from({ length: 30 }, () => login(owner.email, newPassword())));
    const statuses = replies.map((r) => r.status);
    expect(statuses.filter((s) => s === 401)).toHaveLength(10);
    expect(statuses.filter((s) => s === 429)).toHaveLength(20);
    expect((await login(owner.email, owner.password)).status).toBe(429);
  });

  it("counts every address of one IPv6 /64 as one source", async () => {
    const replies = [];
    for (let i = 0; i < 51; i++) {
      const ip = `2001:db8:20:12:${(i + 1).toString(16)}::${(i * 7 + 1).toString(16)}`;
      replies.push((await login(uniqueEmail("v6-spray"), newPassword(), ip)).status);
    }
    expect(replies.slice(0, 50).every((s) => s === 401)).toBe(true);
    expect(replies[50]).toBe(429);
    // The next /64 is another subscriber.
    const owner = await createAccount();
    expect((await login(owner.email, owner.password, "2001:db8:20:13::1")).status).toBe(200);
  });

  it("takes a right password's count back: an office's sign-ins are no failures of its address", async () => {
    const owner = await createAccount();
    const ip = "192.0.2.240";
    for (let i = 0; i < 60; i++) expect((await login(owner.email, owner.password, ip)).status).toBe(200);
    expect((await login(uniqueEmail("typo"), newPassword(), ip)).status).toBe(401);
  });
});
