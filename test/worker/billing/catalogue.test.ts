import { describe, expect, it } from "vitest";
import { expectStatus, request } from "../fixtures/client.ts";

describe("public catalogue", () => {
  it("lists the plan ladder from pay-as-you-go up, in USD", async () => {
    const res = await request("GET", "/api/plans");
    expectStatus(res, 200);
    expect(res.body.map((p: { code: string }) => p.code)).toEqual(["payg", "starter", "business", "carrier"]);
    const [payg, starter] = res.body;
    expect(payg).toMatchObject({ monthly_fee: 0, included_minutes: null, per_minute_rate: 0.012, min_billable_seconds: 60 });
    expect(starter).toMatchObject({ monthly_fee: 49, ports: 10, included_minutes: 5000, per_minute_rate: 0.01, active: true });
  });

  it("lists AI tiers with names and fees only, never the provider or model", async () => {
    const res = await request("GET", "/api/ai-modes");
    expectStatus(res, 200);
    expect(res.body).toEqual([
      { mode: "lite", analysis_fee_per_call: 0.005 },
      { mode: "power", analysis_fee_per_call: 0.02 },
      { mode: "expert", analysis_fee_per_call: 0.06 },
    ]);
  });

  it("tells the sign-in page the password policy and token lifetime", async () => {
    const res = await request("GET", "/api/auth/config");
    expectStatus(res, 200);
    expect(res.body).toEqual({
      signup_enabled: true,
      password_min_length: 12,
      access_token_ttl_sec: 900,
      session_idle_timeout_min: 0,
    });
  });
});
