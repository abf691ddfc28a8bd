// The published contract: /api/openapi.json is a valid OpenAPI 3.1 document, and every
// route the app serves under /api is in it (a route missing from the document is a bug).
import { Validator } from "@seriousme/openapi-schema-validator";
import { beforeAll, describe, expect, it } from "vitest";
import { newApp } from "../../worker/app.ts";

const env = {
  JWT_SECRET: "x".repeat(32),
  ENCRYPTION_KEY: "x".repeat(32),
  NODE_TOKEN: "x".repeat(32),
  DB: {},
};

/** Routes served outside the document on purpose: the document itself and its explorer. */
const UNDOCUMENTED = new Set(["GET /api/openapi.json", "GET /api/docs"]);

let doc: any;

beforeAll(async () => {
  const res = await newApp().request("/api/openapi.json", {}, env);
  expect(res.status).toBe(200);
  doc = await res.json();
});

describe("/api/openapi.json", () => {
  it("is a valid OpenAPI 3.1.0 document, version 0.1.0", async () => {
    const validator = new Validator();
    const result = await validator.validate(doc);
    expect(result.errors ?? []).toEqual([]);
    expect(result.valid).toBe(true);
    expect(validator.version).toBe("3.1");
    expect(doc.openapi).toBe("3.1.0");
    expect(doc.info.version).toBe("0.1.0");
    expect(doc.servers).toEqual([{ url: "/api" }]);
  });

  it("documents every route the app serves under /api", () => {
    const documented = new Set(
      Object.entries(doc.paths as Record<string, Record<string, unknown>>).flatMap(([path, ops]) =>
        Object.keys(ops).map((method) => `${method.toUpperCase()} /api${path.replace(/\{(\w+)\}/g, ":$1")}`),
      ),
    );
    const served = newApp()
      .routes.filter((r) => r.path.startsWith("/api/") && r.method !== "ALL")
      .map((r) => `${r.method} ${r.path}`)
      .filter((route) => !UNDOCUMENTED.has(route));
    expect(served.length).toBeGreaterThan(5);
    expect(served.filter((route) => !documented.has(route))).toEqual([]);
    expect([...documented].filter((route) => !served.includes(route))).toEqual([]);
  });

  it("documents the error body and both credentials", () => {
    expect(doc.components.schemas.Error).toBeDefined();
    expect(doc.components.securitySchemes).toMatchObject({
      BearerAuth: { type: "http", scheme: "bearer" },
      ApiKeyAuth: { type: "apiKey", in: "header", name: "X-API-Key" },
    });
    expect(doc.paths["/customer/ledger"].get.security).toEqual([{ BearerAuth: [] }, { ApiKeyAuth: [] }]);
  });
});
