import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { newApp } from "../../../worker/app.ts";
import { VERSION } from "../../../worker/version.ts";
import { expectStatus, request } from "../fixtures/client.ts";

describe("GET /api/health", () => {
  it("answers ok with the database reachable", async () => {
    const res = await request("GET", "/api/health");
    expectStatus(res, 200);
    expect(res.body).toEqual({ status: "ok", db: true, version: VERSION });
  });

  it("reports db false and a degraded status when D1 fails", async () => {
    const brokenD1 = {
      prepare() {
        throw new Error("D1_ERROR: database unavailable");
      },
    } as unknown as D1Database;
    const res = await newApp().request("/api/health", {}, { ...env, DB: brokenD1 });
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ status: "degraded", db: false, version: VERSION });
  });
});
