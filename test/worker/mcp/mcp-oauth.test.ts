// The MCP SDK's own client through the whole OAuth flow, as an agent runs it: the 401 names the
// resource metadata, the client discovers the authorization server, registers (RFC 7591) or
// names its client metadata document, sends the person to the consent page (played by the test,
// CSRF token and all), exchanges the code with its PKCE verifier, then works through tools:
// a read, a write and a test call that waits for a person. It refreshes when its access token is
// refused, and after a revocation it is refused for good.
import { UnauthorizedError } from "@modelcontextprotocol/sdk/client/auth.js";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { InvalidGrantError } from "@modelcontextprotocol/sdk/server/auth/errors.js";
import { CfWorkerJsonSchemaValidator } from "@modelcontextprotocol/sdk/validation/cfworker";
import { afterEach, describe, expect, it, vi } from "vitest";
import { MemoryAgent } from "../../shared/agent-oauth.ts";
import { bodyOf, expectStatus, ORIGIN } from "../fixtures/client.ts";
import { createAccount, type Session } from "../fixtures/factory.ts";
import { consent, MCP_RESOURCE, serveClientMetadata, workerFetch } from "../fixtures/oauth.ts";

const REDIRECT = "http://127.0.0.1:33418/callback";
const DOC_URL = "https://sdk-agent.example/oauth/client.json";

afterEach(() => vi.restoreAllMocks());

/** An MCP host as the SDK drives it; with a client metadata document's URL, identified by it instead of registering. */
const newAgent = (clientMetadataUrl?: string) =>
  new MemoryAgent({ name: "SDK Agent", redirect: REDIRECT, state: "sdk-state", ...(clientMetadataUrl ? { clientMetadataUrl } : {}) });

const newClient = () => new Client({ name: "sdk-agent", version: "1.0.0" }, { jsonSchemaValidator: new CfWorkerJsonSchemaValidator() });
const transportFor = (agent: MemoryAgent) =>
  new StreamableHTTPClientTransport(new URL(MCP_RESOURCE), { authProvider: agent, fetch: workerFetch });

async function callOk(client: Client, name: string, args: Record<string, unknown> = {}) {
  const result = (await client.callTool({ name, arguments: args })) as CallToolResult;
  expect(result.isError, `${name}: ${JSON.stringify(result.content)}`).toBeFalsy();
  return result.structuredContent as any;
}

/**
 * Connects as an agent would: the handshake needs no credential (issue 31), the first tool that
 * needs sign-in is refused with 401, the agent authorizes through the person and connects again.
 */
async function authorizeAndConnect(agent: MemoryAgent, person: Session): Promise<Client> {
  const transport = transportFor(agent);
  const anonymous = newClient();
  await anonymous.connect(transport);
  await expect(anonymous.callTool({ name: "list_calls", arguments: {} })).rejects.toBeInstanceOf(UnauthorizedError);
  const url = agent.authorizationUrl!;
  expect(url.origin + url.pathname).toBe(`${ORIGIN}/api/oauth/authorize`);
  expect(url.searchParams.get("resource")).toBe(MCP_RESOURCE);
  expect(url.searchParams.get("code_challenge_method")).toBe("S256");
  const back = await consent(url, person);
  expect(back.origin + back.pathname).toBe(REDIRECT);
  expect(back.searchParams.get("iss")).toBe(ORIGIN);
  expect(back.searchParams.get("state")).toBe("sdk-state");
  await transport.finishAuth(back.searchParams.get("code")!);
  const client = newClient();
  await client.connect(transportFor(agent));
  return client;
}

describe("the MCP SDK client through OAuth", () => {
  it("registers, is authorized by the person, works through tools, refreshes, and is refused after revocation", async () => {
    const owner = await createAccount();
    const agent = newAgent();
    const client = await authorizeAndConnect(agent, owner);
    expect(agent.clientInformation()?.client_id).toMatch(/^[0-9a-f-]{36}$/);

    const tools = (await client.listTools()).tools.map((t) => t.name);
    expect(tools).toEqual(expect.arrayContaining(["list_calls", "add_destination", "place_test_call"]));
    expect((await callOk(client, "list_calls")).items).toEqual([]);
    const destination = await callOk(client, "add_destination", { host: "sbc.sdk-agent.test" });
    expect(bodyOf(await owner.client.get("/api/customer/destinations"), 200).map((d: { id: string }) => d.id)).toContain(destination.id);
    const testCall = await callOk(client, "place_test_call", { number: "+14155550188", destination_id: destination.id });
    expect(testCall.status).toBe("awaiting_confirm");
    expect(testCall.confirm_url).toContain(testCall.id);

    // The access token is refused (as an expired one is): the SDK refreshes and goes on.
    const before = agent.tokens()!;
    agent.saveTokens({ ...before, access_token: "expired.or.revoked" });
    expect((await callOk(client, "list_calls")).items).toEqual([]);
    const after = agent.tokens()!;
    expect(after.access_token).not.toBe("expired.or.revoked");
    expect(after.refresh_token).not.toBe(before.refresh_token);

    // The agent gives its token back (RFC 7009): every token of the grant stops working.
    const revoked = await workerFetch(`${ORIGIN}/api/oauth/revoke`, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({ token: after.refresh_token!, client_id: agent.clientInformation()!.client_id }).toString(),
    });
    expect(revoked.status).toBe(200);
    // Refused, the SDK tries its refresh token, which the revocation ended too.
    await expect(client.callTool({ name: "list_calls", arguments: {} })).rejects.toBeInstanceOf(InvalidGrantError);
    const raw = await workerFetch(MCP_RESOURCE, {
      method: "POST",
      headers: {
        "content-type": "application/json",
        accept: "application/json, text/event-stream",
        Authorization: `Bearer ${after.access_token}`,
      },
      body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list" }),
    });
    expect(raw.status).toBe(401);
  });

  it("identifies itself by a client metadata document instead of registering", async () => {
    const { served } = serveClientMetadata({
      [DOC_URL]: {
        client_id: DOC_URL,
        client_name: "SDK Document Agent",
        redirect_uris: [REDIRECT],
        token_endpoint_auth_method: "none",
      },
    });
    const owner = await createAccount();
    const agent = newAgent(DOC_URL);
    const client = await authorizeAndConnect(agent, owner);
    expect(agent.clientInformation()?.client_id).toBe(DOC_URL);
    expect(served.length).toBeGreaterThan(0);
    expect((await callOk(client, "get_started")).account.id).toBe(owner.account.id);
    const agents = await owner.client.get("/api/customer/agents");
    expectStatus(agents, 200);
    expect(agents.body.items).toEqual([
      expect.objectContaining({ client_id: DOC_URL, client_name: "SDK Document Agent", redirect_host: "127.0.0.1:33418" }),
    ]);
  });
});
