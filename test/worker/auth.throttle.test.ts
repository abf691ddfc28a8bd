// Spec rule 3: login throttling per source IP and per e-mail (wrong passwords only), and
// signup throttling per source. Production defaults: 10 wrong passwords per e-mail and
// 30 attempts per IP per 15 minutes; 5 signups per IP per hour.
import { describe, expect, it } from "vitest";
import { request } from "./client.ts";
import { createAccount, newPassword, uniqueEmail } from "./fixtures.ts";

const login = (email: string, password: string, ip = `203.0.113.${Math.floor(Math.random() * 254) + 1}`) =>
  request("POST", "/api/auth/login", { body: { email, password }, headers: { "CF-Connecting-IP": ip } });

describe("login throttling", () => {
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

  it("limits one source address to 30 attempts whatever the e-mails", async () => {
    const ip = "192.0.2.77";
    const replies = [];
    for (let i = 0; i < 31; i++) replies.push((await login(uniqueEmail("spray"), newPassword(), ip)).status);
    expect(replies.slice(0, 30).every((s) => s === 401)).toBe(true);
    expect(replies[30]).toBe(429);
    // Another address is unaffected.
    const owner = await createAccount();
    expect((await login(owner.email, owner.password, "192.0.2.78")).status).toBe(200);
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
