// Screening in Chromium against the stack (issue 32): a fraud desk opens Screening from the Setup
// navigation, reads every rule with its meaning and default and what the rules did, changes a
// velocity rule to refuse at another threshold and saves it (still so after a reload, and in the
// API), is refused a threshold of 0 beside its field (nothing stored), adds a number to the
// do-not-originate list, pastes many (a bad one refused beside the field, nothing added), pages
// through them and removes one. A call placed through the account's trunk shows its screening on
// the call page (no Identity header: identity absent, each flag the API has on it), the calls
// list filters by the caller ID's verification, and a call a rule refuses (603) says so on its page
// and counts on the Screening page. Each page is checked with axe-core and saved at
// 1440 and 390 px (test-results/portal/).
import type { Page } from "playwright-core";
import { describe, expect, it } from "vitest";
import { uac, type Stack } from "../sip-node/harness.ts";
import {
  browserFor,
  checkA11y,
  newOwner,
  onPage,
  open,
  placeCall,
  portal,
  screenshots,
  settled,
  signIn,
  until,
  withTrunk,
  type WithTrunk,
} from "./fixtures.ts";

/** The form field labelled `label` inside `scope` (its input, hint and the 422's message beside it). */
const fieldIn = (page: Page, scope: ReturnType<Page["locator"]>, label: string) =>
  scope.locator(".field", { has: page.getByLabel(label, { exact: true }) });

/** The rules as GET /customer/screening/rules answers them, by name. */
const rulesOf = (body: any) => body.rules;

/** The caller ID of the sipp scenarios (their From user). */
const CALLER = "14155550100";

/** A call from the account's trunk that its screening refuses: sipp expects 603 and acknowledges it; the call as GET /calls/{id} has it. */
async function refusedCall(owner: WithTrunk, dialed: string): Promise<any> {
  const seen = new Set(((await owner.api("/calls?limit=500")).items as { id: string }[]).map((c) => c.id));
  const node = { node: { port: portal.sipPort } } as Stack;
  const caller = await uac(node, owner.trunk.src, "uac-rejected.xml", dialed, { CODE: "603", ANI: CALLER });
  expect(caller.code, `sipp's call, expecting 603:\n${caller.output}`).toBe(0);
  const call = await until(
    "the refused call in GET /calls",
    async () => ((await owner.api("/calls?limit=500")).items as { id: string }[]).find((c) => !seen.has(c.id)) ?? null,
    20_000,
    200,
  );
  return owner.api(`/calls/${call.id}`);
}

/** London numbers in the range kept for drama (020 7946 0xxx): valid, and nobody's. */
const london = (n: number) => `+44207946${String(n).padStart(4, "0")}`;

describe("the screening page", () => {
  it("changes and saves a rule, refuses a bad threshold beside its field, and keeps the do-not-originate list", async (test) => {
    const owner = await newOwner({ name: "Sam Screener" });
    const { page } = await browserFor(test);
    await signIn(page, owner);
    await page.getByRole("navigation", { name: "Setup" }).getByRole("link", { name: "Screening" }).click();
    await onPage(page, "Screening");

    // Every rule with its meaning and default; the API's figures per rule (none yet).
    const defaults = rulesOf(await owner.api("/customer/screening/rules"));
    expect(defaults.calls_per_minute).toMatchObject({ action: "flag", scope: "caller_id", threshold: 30 });
    const rules = page.getByTestId("screening-rule");
    await rules.first().waitFor();
    expect(await rules.count()).toBe(Object.keys(defaults).length);
    const perMinute = page.getByRole("group", { name: "Calls per minute" });
    await perMinute.getByText("Default: Flag, per caller ID, over 30.").waitFor();
    await perMinute.getByText("More calls within one minute than the threshold").waitFor();
    expect(await perMinute.getByLabel("Action").inputValue()).toBe("flag");
    expect(await perMinute.getByLabel("Most calls in a minute").inputValue()).toBe("30");
    const statsRow = page.locator('[data-testid="screening-stats-row"][data-rule="calls_per_minute"]');
    expect(await statsRow.locator("th, td").allTextContents()).toEqual(["Calls per minute", "0", "0", "0", "—"]);
    await checkA11y(page, "screening");
    await screenshots(page, "screening");

    // Refuse from 50 calls a minute: saved, in the API and after a reload.
    await perMinute.getByLabel("Action").selectOption("refuse");
    await perMinute.getByLabel("Most calls in a minute").fill("50");
    await page.getByText("Changes not saved yet.").waitFor();
    const saving = page.waitForResponse((r) => r.url().endsWith("/api/customer/screening/rules") && r.request().method() === "PUT");
    await page.getByRole("button", { name: "Save the rules" }).click();
    expect((await saving).status()).toBe(200);
    await page.getByText("Saved: admission applies them to the next call.").waitFor();
    expect(rulesOf(await owner.api("/customer/screening/rules")).calls_per_minute).toMatchObject({
      action: "refuse",
      scope: "caller_id",
      threshold: 50,
    });
    await page.reload();
    await onPage(page, "Screening");
    const again = page.getByRole("group", { name: "Calls per minute" });
    await expect.poll(() => again.getByLabel("Action").inputValue()).toBe("refuse");
    expect(await again.getByLabel("Most calls in a minute").inputValue()).toBe("50");
    expect(await page.locator('[data-testid="screening-rule"][data-rule="calls_per_minute"]').getAttribute("data-action")).toBe("refuse");

    // A threshold of 0: refused beside its field, nothing stored.
    await again.getByLabel("Most calls in a minute").fill("0");
    const refused = page.waitForResponse((r) => r.url().endsWith("/api/customer/screening/rules") && r.request().method() === "PUT");
    await page.getByRole("button", { name: "Save the rules" }).click();
    expect((await refused).status()).toBe(422);
    const threshold = fieldIn(page, again, "Most calls in a minute");
    await threshold.locator(".field-error").waitFor();
    expect(await again.getByLabel("Most calls in a minute").getAttribute("aria-invalid")).toBe("true");
    await page.getByText("Nothing was saved: correct the marked fields.").waitFor();
    expect(rulesOf(await owner.api("/customer/screening/rules")).calls_per_minute.threshold).toBe(50);
    await page.getByRole("button", { name: "Undo the changes" }).click();
    expect(await again.getByLabel("Most calls in a minute").inputValue()).toBe("50");

    // The do-not-originate list: one number with its label.
    const list = page.getByRole("region", { name: "Do-not-originate list" });
    await list.getByText("No number on the list yet.").waitFor();
    await list.getByLabel("Number", { exact: true }).fill(london(1));
    await list.getByLabel("Label (optional)").fill("help line");
    await list.getByRole("button", { name: "Add the number", exact: true }).click();
    const row = (number: string) => list.locator(`[data-testid="dno-row"][data-number="${number}"]`);
    await row(london(1)).waitFor();
    expect(await row(london(1)).locator("td").first().textContent()).toBe("help line");

    // Pasted: a bad line refused beside the field and nothing added; then 54 good ones, paged by 50.
    const pastedBox = list.getByLabel("Numbers", { exact: true });
    await pastedBox.fill([london(2), "12345", london(3)].join("\n"));
    await list.getByRole("button", { name: "Add 3 numbers" }).click();
    await fieldIn(page, list, "Numbers").locator(".field-error").waitFor();
    expect(await pastedBox.getAttribute("aria-invalid")).toBe("true");
    expect((await owner.api("/customer/screening/do-not-originate")).total).toBe(1);
    const many = Array.from({ length: 54 }, (_, i) => london(100 + i));
    await pastedBox.fill(many.join("\n"));
    await list.getByRole("button", { name: "Add 54 numbers" }).click();
    await list.getByText("55 numbers on the list.").waitFor();
    expect(await pastedBox.inputValue()).toBe("");
    expect((await owner.api("/customer/screening/do-not-originate")).total).toBe(55);
    expect(await list.getByTestId("dno-row").count()).toBe(50);
    await list.getByRole("navigation", { name: "Pages" }).getByText("1–50 of 55").waitFor();
    await list.getByRole("button", { name: "Next" }).click();
    await list.getByRole("navigation", { name: "Pages" }).getByText("51–55 of 55").waitFor();
    await expect.poll(() => list.getByTestId("dno-row").count()).toBe(5);
    await checkA11y(page, "screening-list");
    await screenshots(page, "screening-list");

    // The first number, the oldest, is on the last page: removed there, after the question.
    await row(london(1)).waitFor();
    await row(london(1)).getByRole("button", { name: "Remove" }).click();
    await row(london(1))
      .getByRole("group", { name: `Remove ${london(1)}` })
      .getByRole("button", { name: "Remove it" })
      .click();
    await list.getByText("54 numbers on the list.").waitFor();
    await list.getByRole("navigation", { name: "Pages" }).getByText("51–54 of 54").waitFor();
    const left = await owner.api("/customer/screening/do-not-originate?limit=200");
    expect(left.total).toBe(54);
    expect(left.items.map((n: { number: string }) => n.number)).not.toContain(london(1));
  });
});

describe("a call's screening", () => {
  it("shows what screening found on the call page (let through, then refused by a rule), and the calls list filters by the caller ID's verification", async (test) => {
    const owner = await withTrunk(await newOwner({ name: "Cal Caller" }));
    const call = await placeCall(owner, "answered", { seconds: 2 });
    // sipp sends no Identity header: absent, with no attestation.
    expect(call).toMatchObject({ identity_status: "absent", attestation: null });
    expect(call.screening).toMatchObject({ identity: expect.objectContaining({ status: "absent" }), action: null });

    const { page } = await browserFor(test);
    await signIn(page, owner);
    await open(page, `/app/calls/${call.id}`);
    const card = page.getByTestId("call-screening");
    await card.waitFor();
    expect(await card.getByTestId("identity-status").getAttribute("data-status")).toBe("absent");
    await card.getByText("The call carried no Identity header to verify.").waitFor();
    expect(await card.locator('dt:text-is("Attestation") + dd').textContent()).toBe("None");
    await card.getByText("Let through: no rule refused or diverted it.").waitFor();
    const flags = card.getByTestId("screening-flag");
    expect(await flags.count()).toBe(call.screening.flags.length);
    for (const [i, flag] of (call.screening.flags as { rule: string; detail: string; action: string }[]).entries()) {
      expect(await flags.nth(i).getAttribute("data-rule")).toBe(flag.rule);
      expect(await flags.nth(i).textContent()).toContain(flag.detail);
    }
    if (!call.screening.flags.length) await card.getByText("No rule flagged this call.").waitFor();
    await checkA11y(page, "call-screening");
    await screenshots(page, "call-screening");

    // The calls list: absent shows the call, verified shows none (in the URL, as GET /calls has it).
    await open(page, "/app/calls");
    await settled(page);
    const verification = page.getByLabel("Caller ID verification");
    await verification.selectOption("absent");
    await expect.poll(() => new URL(page.url()).searchParams.get("identity_status")).toBe("absent");
    expect((await owner.api("/calls?identity_status=absent")).items.map((c: { id: string }) => c.id)).toEqual([call.id]);
    await page.getByRole("heading", { level: 2, name: "1 call matching the filters" }).waitFor();
    await verification.selectOption("verified");
    expect((await owner.api("/calls?identity_status=verified")).total).toBe(0);
    await page.getByText("No calls match these filters.", { exact: false }).waitFor();

    // A rule set to refuse: a call showing the number it dials is refused before it rings, says so on
    // its page, and counts on the Screening page.
    await owner.api("/customer/screening/rules", { method: "PUT", body: { rules: { caller_id_equals_dialled: { action: "refuse" } } } });
    const refused = await refusedCall(owner, CALLER);
    expect(refused).toMatchObject({ status: "rejected", screening: { action: "refuse", rule: "caller_id_equals_dialled" } });
    await open(page, `/app/calls/${refused.id}`);
    await card.getByText('Refused before it rang (603 Decline), by the rule "Caller ID is the number dialled".').waitFor();
    const refusal = card.locator('[data-testid="screening-flag"][data-rule="caller_id_equals_dialled"]');
    expect(await refusal.getAttribute("data-action")).toBe("refuse");
    await page.getByRole("navigation", { name: "Setup" }).getByRole("link", { name: "Screening" }).click();
    await onPage(page, "Screening");
    const stats = await owner.api("/customer/screening/stats");
    expect(stats.rules.find((r: { rule: string }) => r.rule === "caller_id_equals_dialled")).toMatchObject({ refused: 1 });
    const row = page.locator('[data-testid="screening-stats-row"][data-rule="caller_id_equals_dialled"]');
    await expect.poll(() => row.locator("td").first().textContent()).toBe("1");
  });
});
