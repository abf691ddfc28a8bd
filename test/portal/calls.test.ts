// The dashboard, the calls list and the call page in Chromium, against real calls through the
// stack's SIP node: the dashboard's figures are GET /customer/dashboard's (for the period asked),
// the list is GET /calls's for the filters the URL keeps, and a spoken scam call's page shows the
// API's verdict, plays the recording with the transcript following it, draws the SIP ladder of
// GET /calls/{id}/sip-log, shares the call behind a password (revoked, the link no longer opens)
// and opens a case drafted by GET /cases/prefill. Each page is checked with axe-core and saved at
// 1440 and 390 px (test-results/portal/).
import type { Page } from "playwright-core";
import { beforeAll, describe, expect, it } from "vitest";
import {
  browserFor,
  checkA11y,
  newOwner,
  onPage,
  open,
  placeCall,
  portal,
  request,
  screenshots,
  scriptedScamCall,
  settled,
  signIn,
  withTrunk,
  type Owner,
  type WithTrunk,
} from "./fixtures.ts";

/** The dashboard's stats (data-testid) and the GET /customer/dashboard field each shows. */
const STATS = {
  "dash-calls-today": "calls_today",
  "dash-calls-period": "calls_period",
  "dash-minutes": "minutes_period",
  "dash-spend": "spend_period",
  "dash-high-risk": "high_risk_pct",
  "dash-balance": "balance",
  "dash-active-calls": "active_calls",
} as const;

/** Every stat's raw number (data-value) as the page shows it, keyed by the API's field. */
async function statsOnPage(page: Page): Promise<Record<string, number>> {
  const shown: Record<string, number> = {};
  for (const [testId, field] of Object.entries(STATS)) {
    shown[field] = Number(await page.getByTestId(testId).getAttribute("data-value"));
  }
  return shown;
}

const statsOf = (dashboard: Record<string, unknown>) => Object.fromEntries(Object.values(STATS).map((field) => [field, dashboard[field]]));

/** The calls the list shows, in order: the id each row's link opens. */
async function listedIds(page: Page): Promise<string[]> {
  const table = page.locator(".table-wrap[aria-busy]");
  if (!(await table.count())) return [];
  if ((await table.getAttribute("aria-busy")) === "true") return ["(still loading)"];
  const hrefs = await page
    .locator("table.calls-table tbody tr td:first-child a")
    .evaluateAll((links) => links.map((a) => a.getAttribute("href") ?? ""));
  return hrefs.map((href) => href.replace(/^\/app\/calls\//, ""));
}

const idsOf = (list: { items: { id: string }[] }) => list.items.map((call) => call.id);

let scam: Promise<{ owner: WithTrunk<Owner>; call: any }> | undefined;

/**
 * The spoken scam call of the call page's tests, on an account of its own: started while the
 * dashboard's tests run (its transcription takes a while), awaited by the call page's.
 */
function scamCall(): Promise<{ owner: WithTrunk<Owner>; call: any }> {
  scam ??= (async () => {
    const owner = await withTrunk(await newOwner());
    return { owner, call: await scriptedScamCall(owner) };
  })();
  return scam;
}

describe("the dashboard and the calls list", () => {
  let owner: WithTrunk<Owner>;
  let answered: any;
  let busy: any;
  beforeAll(async () => {
    // The call page's scam call starts meanwhile (awaited, and any failure reported, by its tests).
    if (portal.transcription) scamCall().catch(() => undefined);
    owner = await withTrunk(await newOwner());
    // Analysed first: its analysis fee and verdict are in the figures before the page reads them.
    answered = await placeCall(owner, "answered", { dialed: "14155550123", analysed: true });
    busy = await placeCall(owner, "busy", { dialed: "14155550199" });
  });

  it("shows the API's figures, for the period chosen", async (test) => {
    const { page } = await browserFor(test);
    await signIn(page, owner);
    await onPage(page, "Dashboard");
    await page.getByTestId("dash-calls-period").waitFor();
    const shown = await statsOnPage(page);
    const dashboard = await owner.api("/customer/dashboard");
    expect(shown).toEqual(statsOf(dashboard));
    expect(dashboard.calls_period).toBe(2);
    await checkA11y(page, "dashboard");
    await screenshots(page, "dashboard");

    const asked = page.waitForRequest((r) => {
      const url = new URL(r.url());
      return url.pathname === "/api/customer/dashboard" && url.searchParams.get("days") === "7";
    });
    await page.getByRole("group", { name: "Period" }).getByRole("button", { name: "7 days" }).click();
    await asked;
    await page.getByText("Figures for the last 7 days").waitFor();
    expect(new URL(page.url()).searchParams.get("days")).toBe("7");
    await expect.poll(() => page.getByRole("button", { name: "7 days" }).getAttribute("aria-pressed")).toBe("true");
    const week = await owner.api("/customer/dashboard?days=7");
    expect(week.days).toBe(7);
    expect(await statsOnPage(page)).toEqual(statsOf(week));
  });

  it("lists the account's calls, narrows them with filters the URL keeps and opens one", async (test) => {
    const { page } = await browserFor(test);
    await signIn(page, owner);
    await page.getByRole("navigation", { name: "Portal" }).getByRole("link", { name: "Calls", exact: true }).click();
    await onPage(page, "Calls");
    await settled(page);
    const all = await owner.api("/calls?limit=50");
    expect(idsOf(all)).toEqual([busy.id, answered.id]);
    await expect.poll(() => listedIds(page)).toEqual(idsOf(all));
    await checkA11y(page, "calls");
    await screenshots(page, "calls");

    // A list's choice applies at once: the busy call's status.
    await page.getByLabel("Status", { exact: true }).selectOption(busy.status);
    await expect.poll(() => new URL(page.url()).searchParams.get("status")).toBe(busy.status);
    const byStatus = await owner.api(`/calls?limit=50&status=${busy.status}`);
    expect(idsOf(byStatus)).toEqual([busy.id]);
    await expect.poll(() => listedIds(page)).toEqual(idsOf(byStatus));
    await page.getByRole("heading", { level: 2, name: "1 call matching the filters" }).waitFor();

    // A typed filter applies on Enter, on top of the status; a number that matches neither call empties the list.
    await page.getByLabel("Status", { exact: true }).selectOption("");
    await page.getByLabel("Search", { exact: true }).fill(answered.dialed);
    await page.getByLabel("Search", { exact: true }).press("Enter");
    await expect.poll(() => new URL(page.url()).searchParams.get("q")).toBe(answered.dialed);
    expect(new URL(page.url()).searchParams.get("status")).toBeNull();
    const byText = await owner.api(`/calls?limit=50&q=${answered.dialed}`);
    expect(idsOf(byText)).toEqual([answered.id]);
    await expect.poll(() => listedIds(page)).toEqual(idsOf(byText));

    // The URL keeps the filter: a reload shows the same list and the box keeps the text.
    await page.reload();
    await onPage(page, "Calls");
    await settled(page);
    await expect.poll(() => listedIds(page)).toEqual(idsOf(byText));
    expect(await page.getByLabel("Search", { exact: true }).inputValue()).toBe(answered.dialed);

    await page.locator("table.calls-table tbody tr").first().getByRole("link").click();
    await expect.poll(() => new URL(page.url()).pathname).toBe(`/app/calls/${answered.id}`);
    await page.getByRole("heading", { level: 2, name: "Verdict" }).waitFor();
  });
});

/** The player's clock in seconds (its data-value; the text shows whole seconds). */
const playerTime = async (page: Page) => Number(await page.getByTestId("player-time").getAttribute("data-value"));

describe.skipIf(!portal.transcription)("a spoken scam call's page (needs the offline transcriber)", () => {
  let owner: WithTrunk<Owner>;
  let call: any;
  beforeAll(async () => {
    ({ owner, call } = await scamCall());
  });

  it("shows the verdict, plays the recording with the transcript following it and draws the SIP ladder", async (test) => {
    expect(call.analysis, `the scam call's analysis ended ${call.analysis_status}: ${call.processing_error}`).toBeTruthy();
    const { page } = await browserFor(test);
    await signIn(page, owner);
    await open(page, `/app/calls/${call.id}`);
    await settled(page);

    const verdict = page.getByRole("region", { name: "Verdict" });
    await expect.poll(() => verdict.locator(".verdict-probability .risk").textContent()).toBe(`${call.analysis.probability}%`);
    expect(await verdict.locator(`.badge.rec-${call.analysis.recommendation}`).textContent()).toBe(
      call.analysis.recommendation.replace(/_/g, " "),
    );
    expect(
      await verdict
        .locator("dt", { hasText: /^Category$/ })
        .locator("+ dd")
        .textContent(),
    ).toBe(call.analysis.category.replace(/_/g, " "));

    // The SIP ladder: one arrow per message of GET /calls/{id}/sip-log, labelled with its method or status.
    const log = await owner.api(`/calls/${call.id}/sip-log`);
    const labels = (log.messages as { method: string; status?: string | null }[]).map(
      (m) => `${m.status || m.method}${m.status && m.method ? ` (${m.method})` : ""}`,
    );
    expect(labels).toContain("INVITE");
    expect(labels).toContain("BYE");
    const ladder = page.getByRole("region", { name: "SIP ladder", exact: true });
    await expect.poll(() => ladder.locator(".ladder-label").allTextContents()).toEqual(labels);
    await ladder.getByText(`${log.messages.length} messages`).waitFor();

    // The recording: Play makes the clock run and a segment of the transcript lights up.
    const play = page.getByRole("button", { name: "Play", exact: true });
    await expect.poll(() => play.isEnabled(), { timeout: 20_000 }).toBe(true);
    await checkA11y(page, "call");
    await screenshots(page, "call");
    const segments = page.getByTestId("transcript-segment");
    expect(await segments.count()).toBeGreaterThan(1);
    await play.click();
    await page.getByRole("button", { name: "Pause", exact: true }).waitFor();
    await expect.poll(() => playerTime(page), { timeout: 10_000 }).toBeGreaterThan(0.5);
    await page.locator('[data-testid="transcript-segment"][aria-current="true"].playing').waitFor();
    expect(await page.locator('[data-testid="transcript-segment"][aria-current="true"]').count()).toBe(1);

    // A click on a later segment seeks there and highlights it.
    const transcript = await owner.api(`/calls/${call.id}/transcript`);
    const spoken = (transcript.segments as { start: number | string; text: string }[])
      .map((s) => ({ start: Number(s.start), text: s.text.trim() }))
      .filter((s) => s.text && Number.isFinite(s.start))
      .sort((a, b) => a.start - b.start);
    const now = await playerTime(page);
    // Not the last words at the very end of the audio: seeking there ends the playback at once.
    const end = Number(transcript.audio_seconds ?? Infinity);
    const later = spoken.find((s) => s.start > now + 3 && s.start < end - 2);
    expect(later, `a transcript segment after ${now} s (segments start at ${spoken.map((s) => s.start).join(", ")})`).toBeTruthy();
    const target = segments.filter({ hasText: later!.text }).last();
    await target.click();
    await expect.poll(() => target.getAttribute("aria-current")).toBe("true");
    expect(await target.getAttribute("class")).toContain("playing");
    const jumped = await playerTime(page);
    expect(jumped).toBeGreaterThanOrEqual(later!.start - 0.2);
    expect(jumped).toBeLessThan(later!.start + 2);
    await page.getByRole("button", { name: "Pause", exact: true }).click();
    await page.getByRole("button", { name: "Play", exact: true }).waitFor();
  });

  it("shares the call behind a password shown once, and revokes the link", async (test) => {
    const { context, page } = await browserFor(test);
    await signIn(page, owner);
    await open(page, `/app/calls/${call.id}`);
    await settled(page);
    const shares = page.getByRole("region", { name: "Share links" });
    const label = `Fraud desk ${Date.now()}`;
    await shares.getByLabel("Label").fill(label);
    await shares.getByLabel("Expires after").selectOption({ label: "3 days" });
    await shares.getByRole("button", { name: "Create share link" }).click();

    const fresh = shares.locator(".share-new");
    await fresh.waitFor();
    const url = (await fresh.getByTestId("share-url").textContent())!;
    const password = (await fresh.locator(".secret code").textContent())!;
    expect(password.length).toBeGreaterThan(8);
    await fresh.getByText("Shown only now").waitFor();
    const token = new URL(url).pathname.split("/").at(-1)!;
    expect(new URL(url).pathname).toBe(`/share/${token}`);

    const listed = (await owner.api(`/calls/${call.id}/shares`)).items as any[];
    const share = listed.find((s) => s.label === label);
    expect(share).toMatchObject({ active: true, revoked_at: null });
    const hours = (Date.parse(share.expires_at) - Date.parse(share.created_at)) / 3_600_000;
    expect(hours).toBeCloseTo(72, 1);
    const row = shares.locator(`tr[data-share-id="${share.id}"]`);
    await row.getByText("Active", { exact: true }).waitFor();
    // The password is shown once: "Done" takes it off the page for good.
    await fresh.getByRole("button", { name: "Done" }).click();
    await fresh.waitFor({ state: "detached" });
    expect(await page.getByText(password).count()).toBe(0);

    const unlocked = await request(`/api/public/shares/${token}/unlock`, { body: { password } });
    expect(unlocked.status).toBe(200);
    expect(unlocked.body.view_token).toBeTruthy();

    await row.getByRole("button", { name: "Revoke" }).click();
    await row.getByText(/^Revoked /).waitFor();
    expect(await row.getByRole("button", { name: "Revoke" }).count()).toBe(0);
    const after = ((await owner.api(`/calls/${call.id}/shares`)).items as any[]).find((s) => s.id === share.id);
    expect(after.active).toBe(false);
    expect(after.revoked_at).toBeTruthy();
    const refused = await request(`/api/public/shares/${token}/unlock`, { body: { password } });
    expect(refused.status).toBe(401);

    // The link's page says so to whoever opens it.
    const outside = await context.newPage();
    await outside.goto(new URL(url).pathname);
    await outside.getByText("This link has been revoked by its sender and no longer opens.").waitFor();
  });

  it("opens a case drafted from the call; the call then links to its case", async (test) => {
    const { page } = await browserFor(test);
    await signIn(page, owner);
    await open(page, `/app/calls/${call.id}`);
    await settled(page);
    const prefill = await owner.api(`/cases/prefill?call_id=${call.id}`);
    expect(prefill.existing_case_id).toBeNull();
    const actions = page.getByRole("region", { name: "Actions" });
    await actions.getByRole("button", { name: "Open a case" }).click();
    const form = actions.getByRole("form", { name: "Open a case" });
    await expect.poll(() => form.getByLabel("Title").inputValue()).toBe(prefill.title);
    expect(await form.getByLabel("Severity").inputValue()).toBe(prefill.severity);
    await form.getByRole("button", { name: "Create the case" }).click();

    await actions.getByRole("link", { name: /^Go to case #\d+$/ }).click();
    await expect.poll(() => new URL(page.url()).pathname).toMatch(/^\/app\/cases\/[^/]+$/);
    const caseId = new URL(page.url()).pathname.split("/").at(-1)!;
    await page.locator("main h1").first().waitFor();
    await settled(page);
    const cases = await owner.api(`/cases?call_id=${call.id}`);
    expect(cases.items.map((c: { id: string }) => c.id)).toEqual([caseId]);
    expect(cases.items[0].title).toBe(prefill.title);

    await open(page, `/app/calls/${call.id}`);
    await settled(page);
    const link = page.getByRole("region", { name: "Actions" }).getByRole("link", { name: "Go to the call's case" });
    expect(await link.getAttribute("href")).toBe(`/app/cases/${caseId}`);
    expect(await page.getByRole("button", { name: "Open a case" }).count()).toBe(0);
  });
});
