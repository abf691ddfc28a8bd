// Caller ID checks and hosted numbers in Chromium against the stack, with the SIP node's own
// hosted-number listener as the far end: a person enrols a number they own (a wrong number and a
// wrong country are refused beside their fields), sees where to forward it (forward_to) and that it
// is pending, presses "Test it" and is told to call it from any phone; sipp's call to the listener
// makes it live on the page without a reload, and it is removed. Another account, whose hosted
// number is live and whose destination delivers to the listener, sees the coverage and the fee,
// runs a check on /app/cli and watches it go from placing to match in its history and its result
// card (sent and received side by side, delay and quality), its hosted number credited its share;
// filters the history by route; is refused a route-test schedule with a bad number beside the
// field; creates a daily check schedule whose first run ends in match, pauses it and removes it.
// Each page is checked with axe-core and saved at 1440 and 390 px (test-results/portal/).
import type { Page } from "playwright-core";
import { describe, expect, it } from "vitest";
import { freeUdpPort, uac, type Stack } from "../sip-node/harness.ts";
import { browserFor, checkA11y, newOwner, onPage, screenshots, signIn, until, type Owner } from "./fixtures.ts";

/** The platform's caller ID (wrangler.toml PLATFORM_CALLER_ID), sent when no verified number is chosen. */
const PLATFORM_CALLER_ID = "+18005550100";
const digits = (n: number) => String(Math.floor(Math.random() * 10 ** n)).padStart(n, "0");
/** A Paris number, unique to the run (a number is hosted once on the platform). */
const frNumber = () => `+3314${digits(7)}`;
/** A Madrid number, unique to the run: another country than the checks', so the check's test has France to itself. */
const esNumber = () => `+3491${digits(7)}`;

/** The form field labelled `label` (its input, hint and the 422's message beside it). */
const fieldOf = (page: Page, label: string) => page.locator(".field", { has: page.getByLabel(label, { exact: true }) });

/** The port of the hosted-number listener, as forward_to names it (sip:+44…@127.0.0.1:<port>). */
function listenerOf(forwardTo: string): Stack {
  const port = /^sip:\+[0-9]+@127\.0\.0\.1:([0-9]+)$/.exec(forwardTo)?.[1];
  if (!port) throw new Error(`forward_to is not the local listener: ${forwardTo}`);
  return { node: { port: Number(port) } } as Stack;
}

/** A call to `number` from any phone, as the listener takes it: sipp rings it, is answered with the tone, hangs up. */
async function callIt(forwardTo: string, number: string): Promise<void> {
  const call = await uac(listenerOf(forwardTo), "127.0.0.1", "uac.xml", number);
  expect(call.code, `sipp's call to ${number} at the listener:\n${call.output}`).toBe(0);
}

/** A number of `owner`'s, enrolled, tested and live (through the API and a sipp call). */
async function liveHostedNumber(owner: Owner, number: string): Promise<any> {
  const hosted = await owner.api("/customer/hosted-numbers", { body: { number } });
  await owner.api(`/customer/hosted-numbers/${hosted.id}/test`, { method: "POST" });
  await callIt(hosted.forward_to, number);
  return until(
    `${number} to be live`,
    async () => {
      const now = await owner.api(`/customer/hosted-numbers/${hosted.id}`);
      return now.status === "live" ? now : null;
    },
    15_000,
    200,
  );
}

/** Reads `read` until `done` holds of it, keeping each value it passed through: what the person saw, in order. */
async function valuesSeen(what: string, read: () => Promise<string | null>, done: (value: string) => boolean): Promise<string[]> {
  const seen: string[] = [];
  await until(
    what,
    async () => {
      const value = await read();
      if (value && seen.at(-1) !== value) seen.push(value);
      return value !== null && done(value);
    },
    60_000,
    100,
  );
  return seen;
}

describe("hosted numbers", () => {
  it("enrols a number, shows where to forward it, opens the test window, and a call to it makes it live", async (test) => {
    const owner = await newOwner({ name: "Hana Host" });
    const number = esNumber();
    const { page } = await browserFor(test);
    await signIn(page, owner);
    await page.getByRole("navigation", { name: "Setup" }).getByRole("link", { name: "Hosted numbers" }).click();
    await onPage(page, "Hosted numbers");
    await page.getByText("No hosted number yet. Enrol one above.").waitFor();
    await page.getByText(/earns you 50% of each check's fee \(\$0\.025\)/).waitFor();

    // Refusals beside their fields: a number that is none, then a country the number is not in.
    const numberInput = page.getByLabel("Number", { exact: true });
    const countryInput = page.getByLabel("Country (optional)");
    const enrol = page.getByRole("button", { name: "Enrol the number" });
    await numberInput.fill("12");
    await enrol.click();
    const numberError = fieldOf(page, "Number").locator(".field-error");
    await numberError.filter({ hasText: "must be a number in international form" }).waitFor();
    expect(await numberInput.getAttribute("aria-invalid")).toBe("true");
    await numberInput.fill(number);
    await countryInput.fill("gb");
    expect(await countryInput.inputValue()).toBe("GB");
    await enrol.click();
    await fieldOf(page, "Country (optional)").locator(".field-error").filter({ hasText: "is in ES, not GB" }).waitFor();
    expect(await countryInput.getAttribute("aria-invalid")).toBe("true");
    expect(await numberError.count()).toBe(0);

    await countryInput.fill("");
    await page.getByLabel("How its calls reach the platform (optional)").fill("forwarded by my provider");
    await enrol.click();
    const card = page.getByTestId("hosted-number");
    await card.waitFor();
    const [hosted] = (await owner.api("/customer/hosted-numbers")).items;
    expect(hosted).toMatchObject({ number, country: "ES", status: "pending", reach_by: "forwarded by my provider" });
    expect(await card.getByRole("heading", { level: 3 }).textContent()).toBe(number);
    expect(await card.getAttribute("data-status")).toBe("pending");
    expect(await card.locator(".badge").first().textContent()).toBe("pending");
    await card.getByText("Pending: it takes no check until a call to it reaches the platform.").waitFor();
    expect(await card.getByTestId("forward-to").textContent()).toBe(hosted.forward_to);
    listenerOf(hosted.forward_to);
    expect(await card.getByRole("button", { name: `Copy the SIP address for ${number}` }).isVisible()).toBe(true);
    expect(await card.locator('dt:text-is("Country") + dd').textContent()).toBe("Spain (ES)");
    expect(await card.getByTestId("checks-answered").textContent()).toBe("0");
    expect(await card.getByTestId("earnings").textContent()).toBe("$0.00");
    expect(await page.getByTestId("test-window").count()).toBe(0);

    // "Test it": the ten-minute window, and what to do in it.
    await card.getByRole("button", { name: "Test it" }).click();
    const testWindow = card.getByTestId("test-window");
    await testWindow.getByText(`Call ${number} from any phone now.`).waitFor();
    expect(await testWindow.getByRole("timer").textContent()).toMatch(/^(10:00|9:[0-5][0-9]) left\.$/);
    const testing = await owner.api(`/customer/hosted-numbers/${hosted.id}`);
    const windowMs = Date.parse(testing.awaiting_test_call_until) - Date.now();
    expect(windowMs).toBeGreaterThan(590_000);
    expect(windowMs).toBeLessThanOrEqual(600_000);
    await checkA11y(page, "hosted-numbers");
    await screenshots(page, "hosted-numbers");

    // The call from "any phone" (sipp, to the listener forward_to names): live, without a reload.
    await callIt(hosted.forward_to, number);
    await page.locator('[data-testid="hosted-number"][data-status="live"]').waitFor({ timeout: 15_000 });
    await card.getByText("Live: it takes checks, and earns from each one it answers.").waitFor();
    expect(await testWindow.count()).toBe(0);
    expect(await card.locator('dt:text-is("Live since") + dd').textContent()).not.toBe("—");
    expect(await card.getByRole("button", { name: "Test it" }).isVisible()).toBe(true);
    const coverage = await owner.api("/customer/cli/coverage");
    expect(coverage.countries).toContainEqual(expect.objectContaining({ country: "ES", hosted_numbers: 1 }));

    // Removed, after the question: it leaves coverage.
    await card.getByRole("button", { name: "Remove" }).click();
    await card
      .getByRole("group", { name: `Remove ${number}` })
      .getByRole("button", { name: "Remove it" })
      .click();
    await page.getByText("No hosted number yet. Enrol one above.").waitFor();
    expect((await owner.api("/customer/hosted-numbers")).items).toEqual([]);
    const after = await owner.api("/customer/cli/coverage");
    expect(after.countries.find((c: { country: string }) => c.country === "ES")?.hosted_numbers ?? 0).toBe(0);
  });
});

describe("caller ID checks", () => {
  it("runs a check through a route that delivers to a held number and follows it from placing to match; history, schedules", async (test) => {
    const owner = await newOwner({ name: "Cleo Checker" });
    const number = frNumber();
    const hosted = await liveHostedNumber(owner, number);
    // The route under test delivers to the listener itself, as a carrier's route would deliver to the number.
    const listener = listenerOf(hosted.forward_to);
    const route = await owner.api("/customer/destinations", {
      body: { host: "127.0.0.1", port: listener.node.port, is_default: true, label: "route to the held number" },
    });
    const quiet = await owner.api("/customer/destinations", {
      body: { host: "127.0.0.1", port: await freeUdpPort(), label: "quiet route" },
    });

    const { page } = await browserFor(test);
    await signIn(page, owner);
    await page.getByRole("navigation", { name: "Portal" }).getByRole("link", { name: "Caller ID checks" }).click();
    await onPage(page, "Caller ID checks");

    // Coverage and the fee: France, where only this account's hosted number takes checks.
    const fr = page.locator('[data-testid="cli-coverage-row"][data-country="FR"]');
    await fr.waitFor();
    const coverage = await owner.api("/customer/cli/coverage");
    expect(coverage.countries).toContainEqual({ country: "FR", numbers: 1, platform_numbers: 0, hosted_numbers: 1 });
    expect(await fr.locator("th, td").allTextContents()).toEqual(["France (FR)", "1", "0", "1"]);
    expect(await page.getByTestId("cli-coverage-fee").textContent()).toBe("$0.05");
    expect(await page.getByTestId("cli-fee").textContent()).toMatch(/^A check costs \$0\.05, whatever its result/);
    await page.getByText("No check yet. Run one above.").waitFor();
    await page.getByText("No schedule yet.").waitFor();

    // The form: the default route, France, the platform's own caller ID.
    const form = page.locator("form", { has: page.getByRole("button", { name: "Run the check" }) });
    expect(await form.getByLabel("Route to test").inputValue()).toBe(route.id);
    await form.getByLabel("Country", { exact: true }).selectOption("FR");
    expect(await form.getByLabel("Caller ID to prove").inputValue()).toBe("");
    const asking = page.waitForResponse((r) => r.url().endsWith("/api/customer/cli/checks") && r.request().method() === "POST");
    await page.getByRole("button", { name: "Run the check" }).click();
    const asked = await (await asking).json();
    expect(asked).toMatchObject({ status: "placing", country: "FR", destination_id: route.id, sent: { caller_id: PLATFORM_CALLER_ID } });

    // The history row and the result card, from placing to match, without a reload.
    const row = page.locator(`[data-testid="cli-check-row"][data-check-id="${asked.id}"]`);
    const result = page.getByTestId("cli-result");
    const rowSeen = valuesSeen(
      "the check's row to reach its result",
      () => row.getAttribute("data-result", { timeout: 1_000 }).catch(() => null),
      (value) => value !== "placing",
    );
    const cardSeen = valuesSeen(
      "the check's card to reach its result",
      () => result.getAttribute("data-result", { timeout: 1_000 }).catch(() => null),
      (value) => value !== "placing",
    );
    const [rows, cards] = await Promise.all([rowSeen, cardSeen]);
    const check = await owner.api(`/customer/cli/checks/${asked.id}`);
    expect(rows, `the row passed ${rows.join(" → ")}: ${JSON.stringify(check)}`).toEqual(["placing", "match"]);
    expect(cards, `the card passed ${cards.join(" → ")}`).toEqual(["placing", "match"]);
    expect(check).toMatchObject({ status: "completed", result: "match", change: null, hosted: true, fee_usd: 0.05 });
    expect(check.received.from.replace(/^\+/, "")).toBe(PLATFORM_CALLER_ID.slice(1));

    await result.getByText("The number arrived exactly as it was sent: this route keeps your caller ID.").waitFor();
    expect(await result.getByRole("heading", { level: 2 }).textContent()).toBe("Check to France (FR): match");
    expect(await result.getByTestId("sent-caller-id").textContent()).toBe(PLATFORM_CALLER_ID);
    expect(await result.getByTestId("received-from").textContent()).toBe(check.received.from);
    expect(await result.locator("mark").count()).toBe(0);
    const fact = (name: string) => result.locator(`dt:text-is("${name}") + dd`).textContent();
    expect(await fact("Number called")).toBe(`${check.number_called} (a hosted number)`);
    expect(check.number_called).toBe(`+33${"•".repeat(number.length - 6)}${number.slice(-3)}`);
    expect(await fact("Through")).toBe("route to the held number");
    expect(await fact("Privacy")).toBe("none");
    const delay = (value: number | null) => (value === null ? "—" : `${value.toLocaleString("en-US")} ms`);
    expect(await fact("Post-dial delay")).toBe(delay(check.post_dial_delay_ms));
    expect(await fact("Answer delay")).toBe(delay(check.answer_delay_ms));
    expect(check.answer_delay_ms).toEqual(expect.any(Number));
    const quality = (value: number | null) => (value === null ? "—" : value.toFixed(2));
    expect(await fact("MOS, as the number heard the platform")).toBe(quality(check.mos.sent));
    expect(await fact("MOS, as the platform heard the number")).toBe(quality(check.mos.received));
    expect(await fact("SIP answer")).toMatch(/^200 /);
    expect(await fact("Fee")).toBe("$0.05");
    const cells = await row.locator("td").allTextContents();
    expect(cells.slice(2, 6)).toEqual(["route to the held number", "France (FR)", PLATFORM_CALLER_ID, check.received.from]);
    expect(cells[6]).toBe(`${delay(check.post_dial_delay_ms)} / ${delay(check.answer_delay_ms)}`);
    expect(cells[7]).toBe(`${quality(check.mos.sent)} / ${quality(check.mos.received)}`);
    expect(cells[8]).toBe("$0.05");

    // The account's own hosted number answered it: its share, and the fee once in the ledger.
    const answered = await until(
      "the hosted number's share",
      async () => {
        const now = await owner.api(`/customer/hosted-numbers/${hosted.id}`);
        return now.checks_answered === 1 ? now : null;
      },
      10_000,
      200,
    );
    expect(answered.earnings_usd).toBe(0.025);
    const ledger = (await owner.api("/customer/ledger?limit=100")).items as { type: string }[];
    expect(ledger.filter((e) => e.type === "cli_check")).toHaveLength(1);
    expect(ledger.filter((e) => e.type === "hosted_number_share")).toHaveLength(1);

    // The history by route: the quiet route has none, every route has it again.
    const routeFilter = page.getByRole("search", { name: "Filter the checks" }).getByLabel("Route");
    await routeFilter.selectOption(quiet.id);
    await page.getByText("No check matches.").waitFor();
    expect(new URL(page.url()).searchParams.get("destination")).toBe(quiet.id);
    await routeFilter.selectOption(route.id);
    await row.waitFor();
    await routeFilter.selectOption("");
    await row.waitFor();

    // Schedules: a route test with a bad number is refused beside the field.
    const schedules = page.getByRole("form", { name: "New schedule" });
    await schedules.getByLabel("What to run").selectOption("test_call");
    await schedules.getByLabel("Number to call").fill("call me");
    await schedules.getByRole("button", { name: "Create the schedule" }).click();
    await fieldOf(page, "Number to call").locator(".field-error").filter({ hasText: "number must be 2 to 32 digits" }).waitFor();
    expect(await schedules.getByLabel("Number to call").getAttribute("aria-invalid")).toBe("true");
    expect((await owner.api("/customer/cli/schedules")).items).toEqual([]);

    // A daily check on the route: its first run at once, ending in match.
    await schedules.getByLabel("What to run").selectOption("cli_check");
    expect(await schedules.getByLabel("Destination").inputValue()).toBe(route.id);
    await schedules.getByLabel("How often").selectOption("daily");
    await schedules.getByLabel("Country to call").selectOption("FR");
    await schedules.getByRole("button", { name: "Create the schedule" }).click();
    const scheduleRow = page.getByTestId("cli-schedule-row");
    await scheduleRow.waitFor();
    const [schedule] = (await owner.api("/customer/cli/schedules")).items;
    expect(schedule).toMatchObject({ kind: "cli_check", country: "FR", every: "daily", enabled: true, destination_id: route.id });
    expect(schedule.last_run_id).toEqual(expect.any(String));
    expect(await scheduleRow.locator("th").textContent()).toBe("Caller-ID check to France (FR)");
    await scheduleRow
      .getByTestId("last-outcome")
      .filter({ hasText: /^match$/ })
      .waitFor({ timeout: 60_000 });
    const scheduleCells = await scheduleRow.locator("td").allTextContents();
    expect(scheduleCells.slice(0, 3)).toEqual(["route to the held number", "Every day", "active"]);
    expect(scheduleCells[3]).toMatch(/^match\S/);
    expect(scheduleCells[4]).toBe("—");
    // Its run is a check of the history, marked as scheduled.
    const run = page.locator(`[data-testid="cli-check-row"][data-check-id="${schedule.last_run_id}"]`);
    await run.waitFor();
    expect(await run.locator("td").nth(2).textContent()).toBe("route to the held number (scheduled)");
    await checkA11y(page, "cli");
    await screenshots(page, "cli");

    // Paused, then removed.
    await scheduleRow.getByRole("button", { name: "Pause" }).click();
    await page.locator('[data-testid="cli-schedule-row"][data-enabled="false"]').waitFor();
    expect(await scheduleRow.locator("td").nth(2).textContent()).toBe("paused");
    expect(await scheduleRow.getByRole("button", { name: "Resume" }).isVisible()).toBe(true);
    expect((await owner.api(`/customer/cli/schedules/${schedule.id}`)).enabled).toBe(false);
    await scheduleRow.getByRole("button", { name: "Remove" }).click();
    await scheduleRow.getByRole("button", { name: "Remove it" }).click();
    await page.getByText("No schedule yet.").waitFor();
    expect((await owner.api("/customer/cli/schedules")).items).toEqual([]);
  });
});
