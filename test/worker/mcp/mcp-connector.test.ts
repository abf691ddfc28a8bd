// The MCP server with an agent's OAuth token (a connector principal): scopes decide which tools
// run (403 insufficient_scope before the tool, naming the scopes to ask for), the token's
// audience and grant are checked on every request, and every tool call lands in the audit log.
import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { bodyOf, expectStatus, ORIGIN } from "../fixtures/client.ts";
import { addDestination } from "../fixtures/destination.ts";
import { createAccount } from "../fixtures/factory.ts";
import { connectNode } from "../fixtures/test-call.ts";
import { apiKeyOf, callFails, callOk, connectorToken, MCP_URL, mcpClient, workerFetch } from "../fixtures/mcp-client.ts";
import { TestCallSchema } from "../../../worker/resources/test-calls.ts";

const toolCall = (id: number, name: string, args: Record<string, unknown> = {}) => ({
  jsonrpc: "2.0",
  id,
  method: "tools/call",
  params: { name, arguments: args },
});

const post = (token: string, body: unknown) =>
  workerFetch(MCP_URL, {
    method: "POST",
    headers: { "content-type": "application/json", accept: "application/json, text/event-stream", Authorization: `Bearer ${token}` },
    body: JSON.stringify(body),
  });

type AuditRow = { action: string; actor_label: string; actor_user_id: string; detail: string };

const auditOf = async (customerId: string) =>
  (
    await env.DB.prepare(
      "SELECT action, actor_label, actor_user_id, detail FROM audit_log WHERE customer_id = ? AND action = 'mcp.tool_call' ORDER BY created_at",
    )
      .bind(customerId)
      .all<AuditRow>()
  ).results.map((row) => ({ ...row, detail: JSON.parse(row.detail) }));

describe("an agent's token", () => {
  it("runs the tools its scopes allow and lists them all", async () => {
    const owner = await createAccount();
    const { token } = await connectorToken(owner, ["calls:read"]);
    const client = await mcpClient({ token });
    expect((await client.listTools()).tools.length).toBeGreaterThan(10);
    expect((await callOk(client, "list_calls")).items).toEqual([]);
    expect((await callOk(client, "get_started")).account.id).toBe(owner.account.id);
  });

  it("is refused a tool outside its scopes with 403 insufficient_scope naming the scopes to ask for, before the tool runs", async () => {
    const owner = await createAccount();
    const { token } = await connectorToken(owner, ["calls:read"]);
    const res = await post(token, toolCall(1, "add_destination", { host: "sbc.carrier.test" }));
    expect(res.status).toBe(403);
    expect(await res.json()).toEqual({ detail: "insufficient_scope" });
    const challenge = res.headers.get("WWW-Authenticate")!;
    expect(challenge).toMatch(/^Bearer /);
    expect(challenge).toContain('error="insufficient_scope"');
    expect(challenge).toContain('scope="calls:read config:write"');
    expect(challenge).toContain(`resource_metadata="${ORIGIN}/.well-known/oauth-protected-resource/api/mcp"`);
    const destinations = await owner.client.get("/api/customer/destinations");
    expect(destinations.body).toEqual([]);
    expect(await auditOf(owner.account.id)).toEqual([]);
  });

  it("is refused a batch when any of its calls needs a scope the token lacks, naming them all", async () => {
    const owner = await createAccount();
    const { token } = await connectorToken(owner, ["calls:read"]);
    const res = await post(token, [toolCall(1, "list_calls"), toolCall(2, "place_test_call", { number: "+14155550123" })]);
    expect(res.status).toBe(403);
    expect(res.headers.get("WWW-Authenticate")).toContain('scope="calls:read test_calls"');
  });

  it("changes the configuration with config:write, and the audit log names the agent, the person and the tool, never a secret", async () => {
    const owner = await createAccount();
    const { token, clientId, grantId } = await connectorToken(owner, ["calls:read", "config:write"], { clientName: "Claude" });
    const client = await mcpClient({ token });
    const destination = await callOk(client, "add_destination", { host: "sbc.carrier.test", auth_password: "digest-secret-1" });
    await callFails(client, "get_call", { call_id: crypto.randomUUID() });

    const audit = await auditOf(owner.account.id);
    expect(audit.map((a) => [a.detail.tool, a.detail.outcome])).toEqual([
      ["add_destination", "ok"],
      ["get_call", "error"],
    ]);
    expect(audit[0]!.actor_label).toMatch(/^Claude \(agent of /);
    expect(audit[0]!.detail).toMatchObject({
      client_id: clientId,
      grant_id: grantId,
      arguments: expect.arrayContaining(["auth_password", "host"]),
    });
    expect(JSON.stringify(audit)).not.toContain("digest-secret-1");
    // The password was not taken: a person sets it on the trunk page (issue 29).
    expect(destination).toMatchObject({ has_credential: false, ignored_secrets: ["auth_password"] });
    expect(bodyOf(await owner.client.get("/api/customer/destinations"), 200)[0]?.id).toBe(destination.id);
  });

  it("is refused when minted for another resource, or once its grant is revoked", async () => {
    const owner = await createAccount();
    const other = await connectorToken(owner, ["calls:read"], { resource: "https://elsewhere.example/mcp" });
    const foreign = await post(other.token, toolCall(1, "list_calls"));
    expect(foreign.status).toBe(401);
    expect(foreign.headers.get("WWW-Authenticate")).toContain('error="invalid_token"');

    const { token, grantId } = await connectorToken(owner, ["calls:read"]);
    expect((await post(token, toolCall(1, "list_calls"))).status).toBe(200);
    await env.OAUTH_GRANT.get(env.OAUTH_GRANT.idFromName(grantId)).revoke("user");
    expect((await post(token, toolCall(2, "list_calls"))).status).toBe(401);
  });
});

describe("test calls an agent asks for", () => {
  it("wait for a person: place_test_call answers awaiting_confirm with its confirm_url, and nothing is dialled", async () => {
    const owner = await createAccount();
    await addDestination(owner, { is_default: true });
    const node = await connectNode(`mcp-node-${crypto.randomUUID()}`);
    try {
      const client = await mcpClient({ token: (await connectorToken(owner, ["test_calls"])).token });
      const result = await client.callTool({ name: "place_test_call", arguments: { number: "+14155550123" } });
      expect(result.isError).toBeFalsy();
      const placed = TestCallSchema.parse(result.structuredContent);
      expect(placed).toMatchObject({ status: "awaiting_confirm", number: "+14155550123" });
      expect(placed.confirm_url).toMatch(new RegExp(`/app/test-calls/${placed.id}/confirm$`));
      expect((result.content as any[])[0].text).toContain("nothing rings until");

      const seen = await owner.client.get(`/api/customer/test-calls/${placed.id}`);
      expectStatus(seen, 200);
      expect(seen.body.status).toBe("awaiting_confirm");
      expect((await callOk(client, "get_test_call", { test_call_id: placed.id })).status).toBe("awaiting_confirm");
      expect(node.seen.filter((c) => c.type === "originate")).toEqual([]);

      const cancelled = await callOk(client, "cancel_test_call", { test_call_id: placed.id });
      expect(cancelled.status).toBe("cancelled");
      expect(bodyOf(await owner.client.get(`/api/customer/test-calls/${placed.id}`), 200).status).toBe("cancelled");
      expect(await callOk(client, "list_verified_numbers")).toEqual({ items: [], total: 0, next_cursor: null });
    } finally {
      node.close();
    }
  });

  it("need the test_calls scope, and another account's test call is not found", async () => {
    const owner = await createAccount();
    await addDestination(owner, { is_default: true });
    const readOnly = await connectorToken(owner, ["calls:read"]);
    const refused = await post(readOnly.token, toolCall(1, "place_test_call", { number: "+14155550123" }));
    expect(refused.status).toBe(403);
    expect(refused.headers.get("WWW-Authenticate")).toContain('scope="calls:read test_calls"');

    const mine = TestCallSchema.parse(
      await callOk(await mcpClient({ token: (await connectorToken(owner, ["test_calls"])).token }), "place_test_call", {
        number: "+14155550123",
      }),
    );
    const stranger = await createAccount();
    const theirs = await mcpClient({ token: (await connectorToken(stranger, ["test_calls"])).token });
    expect(await callFails(theirs, "get_test_call", { test_call_id: mine.id })).toContain("404");
    expect(await callFails(theirs, "cancel_test_call", { test_call_id: mine.id })).toContain("404");
    expect(bodyOf(await owner.client.get(`/api/customer/test-calls/${mine.id}`), 200).status).toBe("awaiting_confirm");
  });
});

describe("a person's own credential", () => {
  it("places a test call that is queued at once (no confirmation: a person asked)", async () => {
    const owner = await createAccount();
    await addDestination(owner, { is_default: true });
    const client = await mcpClient({ apiKey: await apiKeyOf(owner) });
    const placed = await callOk(client, "place_test_call", { number: "+14155550123" });
    expect(placed.confirm_url).toBeNull();
    expect(placed.status).toBe("queued");
  });

  it("is not scoped and its tool calls are not agent actions", async () => {
    const owner = await createAccount();
    const client = await mcpClient({ apiKey: await apiKeyOf(owner) });
    await callOk(client, "add_destination", { host: "sbc.carrier.test" });
    expect(await auditOf(owner.account.id)).toEqual([]);
  });
});
