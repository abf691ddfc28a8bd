// Test calls in Chromium against the stack: the owner places one on /app/test-calls and watches
// its row move to done without a reload while the SIP node dials sipp behind the account's
// destination (announcement, then the sample for `seconds`); an AI agent (the MCP SDK's client
// through OAuth: registration, the person's consent, the code with PKCE) asks for one, and the
// person opens its confirm_url signed out, signs in, sees who asked and what would ring, and
// confirms it (it rings and reaches done) or cancels another (it never rings). Each page is
// checked with axe-core and saved at 1440 and 390 px (test-results/portal/).
import { UnauthorizedError } from "@modelcontextprotocol/sdk/client/auth.js";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import type { Page } from "playwright-core";
import { describe, expect, it } from "vitest";
import { MemoryAgent } from "../shared/agent-oauth.ts";
import { uas } from "../sip-node/harness.ts";
import { consent } from "./oauth-consent.ts";
import {
  browserFor,
  checkA11y,
  newOwner,
  onPage,
  portal,
  screenshots,
  signedIn,
  signIn,
  submitSignIn,
  until,
  withTrunk,
  type Owner,
  type WithTrunk,
} from "./fixtures.ts";

declare const window: Record<string, unknown>;

const NUMBER = "+14155550123";
/** The shortest test call the API takes: the announcement (about 3.4 s) and five seconds of the sample. */
const SECONDS = 5;
const RANK = ["awaiting_confirm", "queued", "dialing", "ringing", "answered", "done"];
const FINAL = ["done", "failed", "cancelled", "expired"];

/**
 * The destination behind the account's trunk, ready for one test call: sipp rings, answers and
 * waits for the platform's BYE once the sample has played. `done` settles when sipp exits.
 */
async function farEnd(account: WithTrunk<Owner>) {
  const far = uas("uas.xml", account.trunk.port);
  await far.listening;
  far.catch(() => undefined); // awaited by the test; a failure before then must not go unhandled
  // Wrapped: an async function returning the promise itself would wait for sipp's exit.
  return { done: far };
}

/**
 * Reads `read` (a status the page shows) until it is final, keeping each value it passed through:
 * what the person saw, in order.
 */
async function statusesSeen(what: string, read: () => Promise<string | null>): Promise<string[]> {
  const seen: string[] = [];
  await until(
    what,
    async () => {
      const status = await read();
      if (status && seen.at(-1) !== status) seen.push(status);
      return status !== null && FINAL.includes(status);
    },
    60_000,
    100,
  );
  return seen;
}

/** States only move forward. */
const inOrder = (statuses: string[]) => statuses.every((s, i) => i === 0 || RANK.indexOf(s) >= RANK.indexOf(statuses[i - 1]!));

const noReloadSince = (page: Page) => page.evaluate(() => (window.loadedOnce = true));
const stillLoadedOnce = (page: Page) => page.evaluate(() => window.loadedOnce === true);

describe("test calls", () => {
  it("places a test call through the trunk's destination and follows it to done without a reload", async (test) => {
    const owner = await withTrunk(await newOwner({ name: "Theo Tester" }));
    const { page } = await browserFor(test);
    await signIn(page, owner);
    await page.getByRole("navigation", { name: "Portal" }).getByRole("link", { name: "Test calls" }).click();
    await onPage(page, "Test calls");
    await page.getByText("No test call yet. Place one above.").waitFor();
    await noReloadSince(page);

    const far = await farEnd(owner);
    await page.getByLabel("Number to call").fill(NUMBER);
    await page.getByLabel("Length in seconds").fill(String(SECONDS));
    expect(await page.getByLabel("Destination").inputValue()).toBe(owner.trunk.destination.id);
    await page.getByRole("button", { name: "Place the test call" }).click();

    const row = page.getByTestId("test-call-row");
    await row.waitFor();
    const id = (await row.getAttribute("data-test-call-id"))!;
    const seen = await statusesSeen("the test call's row to reach a final state", () => row.getAttribute("data-status"));
    const testCall = await owner.api(`/customer/test-calls/${id}`);
    expect(seen.at(-1), `the row passed ${seen.join(" → ")}: ${JSON.stringify(testCall)}`).toBe("done");
    expect(seen.length, `the row passed ${seen.join(" → ")}`).toBeGreaterThan(1);
    expect(inOrder(seen), `the row passed ${seen.join(" → ")}`).toBe(true);
    expect(await stillLoadedOnce(page)).toBe(true);
    expect((await far.done).code).toBe(0);

    expect(testCall).toMatchObject({ status: "done", answered: true, number: NUMBER, seconds: SECONDS, sip_code: 200 });
    expect(testCall.call_id).toEqual(expect.any(String));
    const cells = await row.locator("td").allTextContents();
    expect(cells.slice(0, 4)).toEqual(["done", NUMBER, "Route test", String(SECONDS)]);
    expect(cells[7]).toBe("yes");
    expect(cells[8]).toBe(`200 ${testCall.sip_reason}`);
    await page.getByTestId("placed-test-call").getByText("Done: answered").waitFor();
    await checkA11y(page, "test-calls");
    await screenshots(page, "test-calls");

    await row.getByRole("link", { name: `Open the call of the test call to ${NUMBER}` }).click();
    await onPage(page, "Calls");
    expect(new URL(page.url()).pathname).toBe(`/app/calls/${testCall.call_id}`);
    const call = await owner.api(`/calls/${testCall.call_id}`);
    expect(call).toMatchObject({ origin: "test", dialed: NUMBER });
  });

  it("confirms an AI agent's test call from its confirm_url, and cancels another that then never rings", async (test) => {
    const owner = await withTrunk(await newOwner({ name: "Tess Owner" }));
    const agent = await connectAgent(owner, "Portal Test Agent");
    const asked = await agent.placeTestCall({ number: NUMBER, seconds: SECONDS });
    expect(asked).toMatchObject({ status: "awaiting_confirm", confirm_url: `${portal.base}/app/test-calls/${asked.id}/confirm` });
    expect(asked.created_by).toBe("Tess Owner via Portal Test Agent");

    // Opened signed out: the sign-in form first, then the confirmation it leads to.
    const { page } = await browserFor(test);
    await page.goto(asked.confirm_url);
    await page.getByRole("heading", { level: 1, name: "Sign in to Call Shield" }).waitFor();
    await page.getByText(`Sign in to open /test-calls/${asked.id}/confirm.`).waitFor();
    await submitSignIn(page, owner);
    await signedIn(page, owner);
    await page.getByRole("heading", { level: 1, name: "Confirm a test call" }).waitFor();
    expect(new URL(page.url()).pathname).toBe(`/app/test-calls/${asked.id}/confirm`);
    expect(await page.getByTestId("created-by").textContent()).toBe(asked.created_by);
    expect(await page.getByTestId("number").textContent()).toBe(NUMBER);
    expect(await page.locator('dt:text-is("Speech") + dd').textContent()).toBe("Route test");
    expect(await page.locator('dt:text-is("Length") + dd').textContent()).toBe(`${SECONDS} seconds`);
    await page.getByRole("timer").waitFor();
    await checkA11y(page, "confirm");
    await screenshots(page, "confirm");

    const far = await farEnd(owner);
    await noReloadSince(page);
    const confirming = page.waitForResponse((r) => r.url().endsWith(`/test-calls/${asked.id}/confirm`) && r.request().method() === "POST");
    await page.getByRole("button", { name: "Confirm the call" }).click();
    const confirmed = await (await confirming).json();
    expect(confirmed).toMatchObject({ status: "queued", confirmed_by: "Tess Owner" });
    const outcome = page.getByTestId("outcome");
    await outcome.getByText("Confirmed by Tess Owner").waitFor();
    const badge = page.locator("header.page-title .badge");
    const seen = await statusesSeen(
      "the confirmed test call to reach a final state",
      async () => (await badge.textContent())?.replaceAll(" ", "_") ?? null,
    );
    expect(seen.at(-1), `the page passed ${seen.join(" → ")}`).toBe("done");
    expect(inOrder(seen), `the page passed ${seen.join(" → ")}`).toBe(true);
    await outcome.getByText(/^Answered, with \d+:\d\d of talk/).waitFor();
    expect(await stillLoadedOnce(page)).toBe(true);
    expect((await far.done).code).toBe(0);
    const done = await owner.api(`/customer/test-calls/${asked.id}`);
    expect(done).toMatchObject({ status: "done", answered: true, confirmed_by: "Tess Owner", confirm_url: null });
    expect(done.call_id).toEqual(expect.any(String));
    expect((await agent.getTestCall(asked.id)).status).toBe("done");

    // A second request, withdrawn by the person: nothing rings.
    const second = await agent.placeTestCall({ number: NUMBER, seconds: SECONDS });
    expect(second.status).toBe("awaiting_confirm");
    await page.goto(second.confirm_url);
    await page.getByRole("heading", { level: 1, name: "Confirm a test call" }).waitFor();
    expect(await page.getByTestId("created-by").textContent()).toBe("Tess Owner via Portal Test Agent");
    await page.getByRole("button", { name: "Cancel it" }).click();
    await page
      .getByTestId("outcome")
      .getByText(/It was cancelled at .*: nothing rang\./)
      .waitFor();
    expect(await badge.textContent()).toBe("cancelled");
    expect(await page.getByRole("button", { name: "Confirm the call" }).count()).toBe(0);
    const cancelled = await owner.api(`/customer/test-calls/${second.id}`);
    expect(cancelled).toMatchObject({ status: "cancelled", call_id: null, answered: null, confirmed_at: null });
    expect((await agent.getTestCall(second.id)).status).toBe("cancelled");
    // The only call of the account is the confirmed one's.
    const calls = (await owner.api("/calls?limit=50")).items as { id: string }[];
    expect(calls.map((c) => c.id)).toEqual([done.call_id]);
  });
});

// ---------------------------------------------------------------------------------------------
// An AI agent: the MCP SDK's client, authorised by the person through OAuth

const REDIRECT = "http://127.0.0.1:33418/callback";

/** The code the consent page sends back to the agent's redirect URI. */
async function codeFromConsent(url: URL, person: Owner): Promise<string> {
  const back = await consent(url, person);
  expect(back.origin + back.pathname).toBe(REDIRECT);
  return back.searchParams.get("code")!;
}

/**
 * An AI agent `name` connected to the person's account over MCP (/api/mcp on the portal's origin):
 * refused its first tool call, it registers, sends the person to consent and exchanges the code with its
 * PKCE verifier, then places and reads test calls with its tools.
 */
async function connectAgent(person: Owner, name: string) {
  const agent = new MemoryAgent({ name, redirect: REDIRECT, state: "portal-test" });
  const endpoint = new URL("/api/mcp", portal.base);
  const newClient = () => new Client({ name: "portal-test-agent", version: "1.0.0" });
  const refused = new StreamableHTTPClientTransport(endpoint, { authProvider: agent });
  // The handshake needs no credential (issue 31); the first tool that needs sign-in answers 401.
  const anonymous = newClient();
  await anonymous.connect(refused);
  await expect(anonymous.callTool({ name: "place_test_call", arguments: { number: "+14155550100" } })).rejects.toBeInstanceOf(
    UnauthorizedError,
  );
  await refused.finishAuth(await codeFromConsent(agent.authorizationUrl!, person));
  const client = newClient();
  await client.connect(new StreamableHTTPClientTransport(endpoint, { authProvider: agent }));
  const call = async (tool: string, args: Record<string, unknown>) => {
    const result = (await client.callTool({ name: tool, arguments: args })) as CallToolResult;
    expect(result.isError, `${tool}: ${JSON.stringify(result.content)}`).toBeFalsy();
    return result.structuredContent as any;
  };
  return {
    placeTestCall: (args: { number: string; seconds: number }) => call("place_test_call", args),
    getTestCall: (id: string) => call("get_test_call", { test_call_id: id }),
  };
}
