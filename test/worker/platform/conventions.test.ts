// The API-wide conventions: JSON errors with "detail", 422 lists naming each field, JSON 404s,
// pagination bounds, and the self-hosted explorer.
import { describe, expect, it } from "vitest";
import { expectStatus, issuesOf, request, textOf } from "../fixtures/client.ts";
import { createAccount } from "../fixtures/factory.ts";

describe("errors", () => {
  it("answers an unknown path with a JSON 404", async () => {
    for (const path of ["/api/no-such-thing", "/nowhere"]) {
      const res = await request("GET", path);
      expectStatus(res, 404);
      expect(res.body).toEqual({ detail: "Not Found" });
    }
  });

  it("answers a malformed JSON body with 422 naming the body", async () => {
    const res = await request("POST", "/api/auth/login", { rawBody: '{"email": "a@b.test", ' });
    expectStatus(res, 422);
    expect(res.body.detail).toEqual([{ loc: ["body"], msg: "Malformed JSON in request body", type: "json_invalid" }]);
  });

  it("names each field of the wrong type or missing, and stores nothing", async () => {
    const res = await request("POST", "/api/auth/signup", { body: { email: 42, accept_terms: "yes" } });
    expectStatus(res, 422);
    const byField = Object.fromEntries(issuesOf(res.body).map((i) => [i.loc.join("."), i]));
    expect(Object.keys(byField).sort()).toEqual(["body.accept_terms", "body.email", "body.password"]);
    expect(byField["body.email"]?.type).toBe("invalid_type");
    expect(byField["body.password"]).toEqual({ loc: ["body", "password"], msg: "Field required", type: "missing" });
    const login = await request("POST", "/api/auth/login", { body: { email: 42, password: "x" } });
    expectStatus(login, 422);
  });

  it("rejects an out-of-range limit or offset with 422 naming the query parameter", async () => {
    const { client } = await createAccount();
    for (const [query, field] of [
      ["limit=0", "limit"],
      ["limit=501", "limit"],
      ["limit=ten", "limit"],
      ["offset=-1", "offset"],
      ["offset=2147483648", "offset"],
    ] as const) {
      const res = await client.get(`/api/customer/ledger?${query}`);
      expectStatus(res, 422, query);
      expect(
        issuesOf(res.body).map((i) => i.loc),
        query,
      ).toEqual([["query", field]]);
    }
  });

  it("applies the default page and echoes the bounds it used", async () => {
    const { client } = await createAccount();
    const res = await client.get("/api/customer/ledger");
    expectStatus(res, 200);
    expect(res.body).toMatchObject({ total: 1, limit: 50, offset: 0 });
    const paged = await client.get("/api/customer/ledger?limit=500&offset=1");
    expect(paged.body).toMatchObject({ total: 1, limit: 500, offset: 1, items: [] });
  });

  it("answers 401 with a JSON detail when no credential is sent", async () => {
    const res = await request("GET", "/api/customer/ledger");
    expectStatus(res, 401);
    expect(res.body).toEqual({ detail: "Not authenticated" });
  });
});

describe("API explorer", () => {
  it("serves /api/docs from our own assets, with no outside address", async () => {
    const res = await request("GET", "/api/docs");
    expectStatus(res, 200);
    expect(res.headers.get("content-type")).toContain("text/html");
    const page = textOf(res);
    const sources = [...page.matchAll(/(?:src|href)="([^"]+)"/g)].map((m) => m[1]);
    expect(sources).toEqual(["/api/docs/assets/swagger-ui.css", "/api/docs/assets/swagger-ui-bundle.js"]);
    expect(page).toContain('url: "/api/openapi.json"');
  });
});
