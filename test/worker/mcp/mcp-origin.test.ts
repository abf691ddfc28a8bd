// /api/mcp's Origin check (issue 20, finding 2): browser pages are let in only from origins
// configured as ours, never from one derived from the request's own Host, which a DNS-rebinding
// page controls (its Origin and Host are both the attacker's name).
import { env } from "cloudflare:test";
import { LATEST_PROTOCOL_VERSION } from "@modelcontextprotocol/sdk/types.js";
import { describe, expect, it } from "vitest";
import { newApp } from "../../../worker/app.ts";
import { loadConfig } from "../../../worker/env.ts";
import { createAccount } from "../fixtures/factory.ts";
import { apiKeyOf, workerFetch } from "../fixtures/mcp-client.ts";

const initialize = {
  jsonrpc: "2.0",
  id: 1,
  method: "initialize",
  params: { protocolVersion: LATEST_PROTOCOL_VERSION, capabilities: {}, clientInfo: { name: "raw", version: "1" } },
};

const init = (apiKey: string, headers: Record<string, string>): RequestInit => ({
  method: "POST",
  headers: { "content-type": "application/json", accept: "application/json, text/event-stream", "X-API-Key": apiKey, ...headers },
  body: JSON.stringify(initialize),
});

async function apiKey() {
  return apiKeyOf(await createAccount());
}

describe("/api/mcp's Origin check", () => {
  it("refuses a DNS-rebinding page: Origin and Host both the attacker's name (403)", async () => {
    const key = await apiKey();
    const rebound = await workerFetch("http://evil.test/api/mcp", init(key, { Origin: "http://evil.test", Host: "evil.test" }));
    expect(rebound.status).toBe(403);
    expect(await rebound.json()).toEqual({ detail: "Origin not allowed" });
    const secure = await workerFetch("https://evil.test/api/mcp", init(key, { Origin: "https://evil.test", Host: "evil.test" }));
    expect(secure.status).toBe(403);
    // A loopback page reaching a public name is refused too; loopback pages count only on loopback.
    expect((await workerFetch("http://evil.test/api/mcp", init(key, { Origin: "http://127.0.0.1:6274" }))).status).toBe(403);
  });

  it("lets in the configured origins (public, portal, passkeys', MCP_ALLOWED_ORIGINS), whatever the Host", async () => {
    const key = await apiKey();
    const bindings = {
      ...env,
      PUBLIC_ORIGIN: "https://shield.example.net",
      PORTAL_ORIGIN: "https://portal.example.net/",
      MCP_ALLOWED_ORIGINS: "https://inspector.example.org, http://tools.example.org:8080",
    };
    for (const origin of [
      "https://shield.example.net",
      "https://portal.example.net",
      "https://api.test", // WEBAUTHN_ORIGIN of the test configuration
      "https://inspector.example.org",
      "http://tools.example.org:8080",
    ]) {
      const res = await newApp().request("https://shield.example.net/api/mcp", init(key, { Origin: origin }), bindings);
      expect(res.status, origin).toBe(200);
    }
    // The request's own origin is not one of them unless configured.
    const own = await newApp().request("https://other.example.net/api/mcp", init(key, { Origin: "https://other.example.net" }), bindings);
    expect(own.status).toBe(403);
  });

  it("lets in requests without Origin (scripts, agents), and loopback pages under npm start", async () => {
    const key = await apiKey();
    expect((await workerFetch("http://evil.test/api/mcp", init(key, {}))).status).toBe(200);
    const local = await workerFetch("http://127.0.0.1:8787/api/mcp", init(key, { Origin: "http://localhost:6274" }));
    expect(local.status).toBe(200);
    const portal = await workerFetch("http://127.0.0.1:8787/api/mcp", init(key, { Origin: "http://127.0.0.1:8787" }));
    expect(portal.status).toBe(200);
  });

  it("takes only origins in MCP_ALLOWED_ORIGINS", () => {
    expect(loadConfig({ ...env, MCP_ALLOWED_ORIGINS: "https://a.example https://b.example:8443/" }).MCP_ALLOWED_ORIGINS).toEqual([
      "https://a.example",
      "https://b.example:8443",
    ]);
    for (const bad of ["https://a.example/path", "ftp://a.example", "not-a-url", "https://u:p@a.example"]) {
      expect(() => loadConfig({ ...env, MCP_ALLOWED_ORIGINS: bad }), bad).toThrow(/MCP_ALLOWED_ORIGINS/);
    }
  });
});
