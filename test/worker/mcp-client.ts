// The MCP SDK's own client, speaking Streamable HTTP to the Worker under test: its fetch goes
// through the real entry point, with the credential a script or an agent would send.
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { CfWorkerJsonSchemaValidator } from "@modelcontextprotocol/sdk/validation/cfworker";
import { env } from "cloudflare:test";
import { exports } from "cloudflare:workers";
import { expect } from "vitest";
import { grantFor } from "../../worker/lib/durable-objects.ts";
import { mintAccessToken } from "../../worker/services/oauth-access.ts";
import { ORIGIN } from "./client.ts";
import { testServices, type Session } from "./fixtures.ts";

export const MCP_URL = `${ORIGIN}/api/mcp`;

/** fetch into the Worker under test. */
export const workerFetch = (input: string | URL | Request, init?: RequestInit) => exports.default.fetch(new Request(input, init));

export type Credential = { apiKey: string } | { token: string };

export const credentialHeaders = (credential: Credential): Record<string, string> =>
  "apiKey" in credential ? { "X-API-Key": credential.apiKey } : { Authorization: `Bearer ${credential.token}` };

/** A connected client (initialize done) acting with `credential`. */
export async function mcpClient(credential: Credential): Promise<Client> {
  const transport = new StreamableHTTPClientTransport(new URL(MCP_URL), {
    fetch: workerFetch,
    requestInit: { headers: credentialHeaders(credential) },
  });
  // Ajv (the client's default validator) compiles with new Function, which workerd forbids.
  const client = new Client({ name: "call-shield-tests", version: "1.0.0" }, { jsonSchemaValidator: new CfWorkerJsonSchemaValidator() });
  await client.connect(transport);
  return client;
}

/** An API key minted by the session's owner. */
export async function apiKeyOf(session: Session): Promise<string> {
  const res = await session.client.post("/api/auth/api-keys", { name: "mcp" });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body.key as string;
}

/** tools/call answered without a tool error; its structured content. */
export async function callOk<T = any>(client: Client, name: string, args: Record<string, unknown> = {}): Promise<T> {
  const result = (await client.callTool({ name, arguments: args })) as CallToolResult;
  expect(result.isError, `${name}: ${JSON.stringify(result.content)}`).toBeFalsy();
  return result.structuredContent as T;
}

/** tools/call answered with a tool error (isError); its text. */
export async function callFails(client: Client, name: string, args: Record<string, unknown> = {}): Promise<string> {
  const result = (await client.callTool({ name, arguments: args })) as CallToolResult;
  expect(result.isError, `${name} should fail: ${JSON.stringify(result)}`).toBe(true);
  return result.content.map((c) => (c.type === "text" ? c.text : "")).join("\n");
}

/**
 * An agent's access token as the OAuth server mints it after a person's consent: a grant of
 * `scopes` for the MCP endpoint (or `resource`), its Durable Object started, the token signed.
 * The consent flow itself is tested with the OAuth server.
 */
export async function connectorToken(
  owner: Session,
  scopes: string[],
  options: { resource?: string; clientName?: string } = {},
): Promise<{ token: string; grantId: string; clientId: string }> {
  const grantId = crypto.randomUUID();
  const clientId = `https://agent.example/${grantId}.json`;
  const resource = options.resource ?? MCP_URL;
  const user = await env.DB.prepare("SELECT id FROM users WHERE customer_id = ?").bind(owner.account.id).first<{ id: string }>();
  const userId = user!.id;
  const now = new Date().toISOString();
  await env.DB.prepare(
    "INSERT INTO oauth_grants (id, customer_id, user_id, client_id, client_name, redirect_host, scope, resource, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
  )
    .bind(grantId, owner.account.id, userId, clientId, options.clientName ?? "Test Agent", "agent.example", scopes.join(" "), resource, now)
    .run();
  const grant = { grantId, customerId: owner.account.id, userId, clientId, scopes, resource, createdAtMs: Date.now() };
  await grantFor(env, grantId).start(grant, crypto.randomUUID(), Date.now() + 86_400_000);
  const { token } = await mintAccessToken(testServices(), {
    issuer: ORIGIN,
    resource,
    userId,
    customerId: owner.account.id,
    grantId,
    clientId,
    scopes,
  });
  return { token, grantId, clientId };
}
