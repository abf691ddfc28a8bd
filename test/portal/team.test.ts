// Team and access (/app/team) in Chromium against the stack: the owner invites a member on the
// page (the welcome e-mail's fate shown), the member signs in with the temporary password from the
// local outbox in a second browser, chooses a password and sees the page without the owner's
// actions, and the owner's list then shows their last sign-in; an API key created on the page is
// shown once, works with curl, and answers 401 after Revoke; an AI agent authorised through OAuth
// (dynamic registration, the person's consent, the code with PKCE) is listed with its scopes, and
// after Revoke its token answers 401 on /api/mcp. The page is checked with axe-core and saved at
// 1440 and 390 px (test-results/portal/team-*.png).
import { spawn } from "node:child_process";
import * as oauth from "oauth4webapi";
import type { Page } from "playwright-core";
import { describe, expect, it } from "vitest";
import { consent } from "./oauth-consent.ts";
import {
  browserFor,
  checkA11y,
  newOwner,
  onPage,
  type Owner,
  portal,
  request,
  screenshots,
  settled,
  signedIn,
  signIn,
  submitSignIn,
  temporaryPasswordOf,
} from "./fixtures.ts";

/** Opens Team and access from the Setup navigation and waits for its data. */
async function openTeam(page: Page): Promise<void> {
  await page.getByRole("navigation", { name: "Setup" }).getByRole("link", { name: "Team and access" }).click();
  await onPage(page, "Team and access");
  await settled(page);
}

const section = (page: Page, name: string) => page.locator("section.card", { has: page.getByRole("heading", { level: 2, name }) });

/** curl's HTTP status for GET /api/calls with the key in X-API-Key (curl spawned as a script would run it). */
function curlCalls(key: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const curl = spawn("curl", ["-s", "-o", "/dev/null", "-w", "%{http_code}", "-H", `X-API-Key: ${key}`, `${portal.api}/api/calls`]);
    let out = "";
    curl.stdout.on("data", (chunk: Buffer) => (out += chunk.toString()));
    curl.on("error", reject);
    curl.on("close", (code) => (code === 0 ? resolve(Number(out)) : reject(new Error(`curl exited ${code}`))));
  });
}

describe("Team and access", () => {
  it("invites a member who then signs in", async (test) => {
    const owner = await newOwner({ company: "Team Test Carrier" });
    const { page } = await browserFor(test);
    await signIn(page, owner);
    await openTeam(page);
    const users = section(page, "Users");
    await expect.poll(() => users.getByTestId("user-count").textContent()).toContain("1 of 10");
    await checkA11y(page, "team");

    const email = `invited-${Date.now()}@portal.test`;
    await users.getByLabel("E-mail of the new member").fill(email);
    await users.getByLabel("Their name").fill("Ivy Invited");
    await users.getByRole("button", { name: "Invite", exact: true }).click();
    // npm start keeps mail in its outbox: the page says the e-mail did not leave, and where it waits.
    const notice = users.getByRole("status").filter({ hasText: `${email} is invited` });
    await notice.waitFor();
    expect(await notice.textContent()).toContain("waits in the service's outbox");
    const row = users.locator("tbody tr", { hasText: email });
    await row.getByText("Invited: has not chosen a password yet").waitFor();
    expect(await row.getByTestId("last-login").textContent()).toBe("never");
    await expect.poll(() => users.getByTestId("user-count").textContent()).toContain("2 of 10");
    const listed = (await owner.api("/customer/users")).items.find((u: { email: string }) => u.email === email);
    expect(listed).toMatchObject({ name: "Ivy Invited", role: "member", is_active: true, must_change_password: true, last_login_at: null });

    // The member, in a browser of their own: the temporary password, then one of their choosing.
    const temporaryPassword = await temporaryPasswordOf(email);
    const other = await browserFor(test);
    await submitSignIn(other.page, { email, password: temporaryPassword });
    await other.page.getByRole("heading", { level: 1, name: "Choose your password" }).waitFor();
    const chosen = `invited member's password ${Date.now()}`;
    await other.page.getByLabel("Current password").fill(temporaryPassword);
    await other.page.getByLabel("New password", { exact: true }).fill(chosen);
    await other.page.getByLabel("New password again").fill(chosen);
    await other.page.getByRole("button", { name: "Change password" }).click();
    await signedIn(other.page, { email, password: chosen });

    // A member sees the team but is offered none of the owner's changes.
    await openTeam(other.page);
    await section(other.page, "Users").locator("tbody tr", { hasText: owner.email }).waitFor();
    expect(await other.page.getByRole("button", { name: "Invite", exact: true }).count()).toBe(0);
    expect(await other.page.getByRole("button", { name: "Create key" }).count()).toBe(0);
    expect(await other.page.getByRole("button", { name: "Add a passkey" }).count()).toBe(0);
    expect(await other.page.getByRole("button", { name: "Deactivate" }).count()).toBe(0);
    await other.page.getByText("The account's owner manages passkeys.").waitFor();
    await checkA11y(other.page, "team-member");
    await screenshots(other.page, "team-member");

    // The owner's list, read again, shows the member's first sign-in.
    await page.reload();
    await page.getByRole("heading", { level: 1, name: "Team and access" }).waitFor();
    await settled(page);
    const signedInRow = section(page, "Users").locator("tbody tr", { hasText: email });
    await signedInRow.getByText("Active", { exact: true }).waitFor();
    expect(await signedInRow.getByTestId("last-login").textContent()).not.toMatch(/^never/);
    const after = (await owner.api("/customer/users")).items.find((u: { email: string }) => u.email === email);
    expect(after.last_login_at).not.toBeNull();
    expect(after.must_change_password).toBe(false);

    // Deactivated, the member can no longer sign in; reactivated, they can.
    await signedInRow.getByRole("button", { name: "Deactivate" }).click();
    await signedInRow.getByText("Deactivated", { exact: true }).waitFor();
    expect((await request("/auth/login", { body: { email, password: chosen } })).status).toBe(401);
    await signedInRow.getByRole("button", { name: "Reactivate" }).click();
    await signedInRow.getByText("Active", { exact: true }).waitFor();
    expect((await request("/auth/login", { body: { email, password: chosen } })).status).toBe(200);
  });

  it("creates an API key that then works with curl, until it is revoked", async (test) => {
    const owner = await newOwner();
    const { page } = await browserFor(test);
    await signIn(page, owner);
    await openTeam(page);
    const keys = section(page, "API keys");
    await keys.getByText("No API key yet.").waitFor();

    await keys.getByLabel("Name of the new key").fill("curl from the NOC");
    await keys.getByRole("button", { name: "Create key" }).click();
    const secret = keys.locator(".secret code");
    await secret.waitFor();
    const key = (await secret.textContent())!.trim();
    expect(key).toMatch(/^csk_/);
    const row = keys.locator("tbody tr", { hasText: "curl from the NOC" });
    await row.getByText("Active", { exact: true }).waitFor();
    const prefix = (await row.locator("code").textContent())!.replace(/…$/, "");
    expect(key.startsWith(prefix) && prefix.length < key.length, `the list shows the key's start (${prefix}) only`).toBe(true);
    await checkA11y(page, "team-key-created");
    await screenshots(page, "team");

    expect(await curlCalls(key)).toBe(200);
    // Used once: the list says when (read again).
    await page.reload();
    await settled(page);
    await expect.poll(async () => (await owner.api("/auth/api-keys"))[0].last_used_at).not.toBeNull();
    expect(await keys.getByText("Shown only now").count(), "the key is never shown again").toBe(0);

    await row.getByRole("button", { name: "Revoke" }).click();
    await row.getByText(/^Revoked /).waitFor();
    expect(await row.getByRole("button", { name: "Revoke" }).count()).toBe(0);
    expect(await curlCalls(key)).toBe(401);
  });

  it("revokes an agent whose token then answers 401", async (test) => {
    const owner = await newOwner();
    const agent = await authorizeAgent(owner, "Team Test Agent");
    expect(await mcpStatus(agent.accessToken)).toBe(200);

    const { page } = await browserFor(test);
    await signIn(page, owner);
    await openTeam(page);
    const agents = section(page, "Authorised AI agents");
    const row = agents.locator("tbody tr", { hasText: "Team Test Agent" });
    await row.waitFor();
    expect(await row.textContent()).toContain(owner.email);
    await row.getByText("read calls and verdicts").waitFor();
    await checkA11y(page, "team-agent");

    await row.getByRole("button", { name: "Revoke" }).click();
    await agents.getByText("No AI agent is authorised.").waitFor();
    expect((await owner.api("/customer/agents")).items).toEqual([]);
    expect(await mcpStatus(agent.accessToken)).toBe(401);
  });
});

// ---------------------------------------------------------------------------------------------
// An AI agent authorised through OAuth, as an MCP host does it

const REDIRECT = "http://127.0.0.1:33419/callback";
const insecure = { [oauth.allowInsecureRequests]: true } as const;

/**
 * An agent `name` the owner authorises for the MCP endpoint: dynamic client registration, the
 * person's consent, the code exchanged with its PKCE verifier. Answers its access token.
 */
async function authorizeAgent(person: Owner, name: string): Promise<{ accessToken: string }> {
  const issuer = new URL(portal.base);
  const as = await oauth.processDiscoveryResponse(issuer, await oauth.discoveryRequest(issuer, { algorithm: "oauth2", ...insecure }));
  const client = await oauth.processDynamicClientRegistrationResponse(
    await oauth.dynamicClientRegistrationRequest(
      as,
      {
        redirect_uris: [REDIRECT],
        token_endpoint_auth_method: "none",
        grant_types: ["authorization_code", "refresh_token"],
        client_name: name,
      },
      insecure,
    ),
  );
  const verifier = oauth.generateRandomCodeVerifier();
  const url = new URL(as.authorization_endpoint!);
  url.searchParams.set("response_type", "code");
  url.searchParams.set("client_id", client.client_id);
  url.searchParams.set("redirect_uri", REDIRECT);
  url.searchParams.set("code_challenge", await oauth.calculatePKCECodeChallenge(verifier));
  url.searchParams.set("code_challenge_method", "S256");
  url.searchParams.set("state", "team-test");
  url.searchParams.set("resource", `${portal.base}/api/mcp`);
  const params = oauth.validateAuthResponse(as, client, await consent(url, person), "team-test");
  const tokens = await oauth.processAuthorizationCodeResponse(
    as,
    client,
    await oauth.authorizationCodeGrantRequest(as, client, oauth.None(), params, REDIRECT, verifier, insecure),
  );
  return { accessToken: tokens.access_token };
}

/** The status of an MCP initialize on /api/mcp with the agent's access token. */
async function mcpStatus(accessToken: string): Promise<number> {
  const res = await fetch(`${portal.base}/api/mcp`, {
    method: "POST",
    headers: {
      "content-type": "application/json",
      accept: "application/json, text/event-stream",
      authorization: `Bearer ${accessToken}`,
    },
    body: JSON.stringify({
      jsonrpc: "2.0",
      id: 1,
      method: "initialize",
      params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "team-test", version: "1.0.0" } },
    }),
  });
  await res.body?.cancel();
  return res.status;
}
