// Billing and settings in Chromium (issue 29), as an owner works them: a new account (US$5 of
// credit) tries a plan whose first month costs more and is told to top up first (402); it tops up
// through the page's checkout (the local payment provider of `npm start`: the browser follows its
// page, pays, and comes back), the balance shows the payment, and buying the plan then succeeds
// and shows it current, with the top-up and the fee in the ledger. In settings, the tax ID and a
// Canadian billing address, without a province (5% GST) and then with one (HST), each showing the
// tax it brings. Every figure is checked against the API; both pages with axe-core and screenshots.
import type { Page } from "playwright-core";
import { describe, expect, it } from "vitest";
import { browserFor, checkA11y, newOwner, onPage, open, screenshots, settled, signIn } from "./fixtures.ts";

/** The balance the page shows, as a number (its data-value), once it equals `expected`. */
async function shownBalance(page: Page, expected: number): Promise<number> {
  const stat = page.getByTestId("balance");
  await page.locator(`[data-testid="balance"][data-value="${expected}"]`).waitFor();
  return Number(await stat.getAttribute("data-value"));
}

const planCard = (page: Page, code: string) => page.locator(`li.plan[data-plan="${code}"]`);

describe("billing", () => {
  it("buys a plan after a local checkout top-up", async (test) => {
    const owner = await newOwner();
    const plans: any[] = await owner.api("/plans");
    const start = await owner.api("/customer/balance");
    expect(start.balance).toBe(5);
    // The cheapest plan whose first month the welcome credit does not cover.
    const plan = plans.filter((p) => p.monthly_fee > start.balance).sort((a, b) => a.monthly_fee - b.monthly_fee)[0];
    expect(plan, "a plan dearer than US$5").toBeTruthy();
    const config = await owner.api("/customer/payments/config");
    expect(config.enabled).toBe(true);
    const amount: number = config.preset_amounts.find((a: number) => a + start.balance >= plan.monthly_fee);
    expect(amount, "a preset amount that covers the plan").toBeTruthy();

    const { page } = await browserFor(test);
    await signIn(page, owner);
    await open(page, "/app/billing");
    await onPage(page, "Billing");
    await settled(page);
    expect(await shownBalance(page, 5)).toBe(5);
    expect(await page.getByTestId("plan").getAttribute("data-value")).toBe(start.plan);
    await planCard(page, start.plan).getByText("Current plan").waitFor();

    // Too little credit for the first month: the page says to top up first (the API's 402).
    const card = planCard(page, plan.code);
    await card.getByRole("button", { name: `Choose ${plan.name}` }).click();
    const refused = page.waitForResponse((r) => r.url().endsWith("/api/customer/plan") && r.request().method() === "POST");
    await card.getByRole("button", { name: `Buy ${plan.name}` }).click();
    expect((await refused).status()).toBe(402);
    const alert = card.getByRole("alert");
    await alert.waitFor();
    expect(await alert.locator("p.error").textContent()).toBe("Top up first: the first month's fee is more than your balance.");
    expect((await owner.api("/auth/me")).plan_code).toBe(start.plan);

    // Top up through the checkout: the local provider's page, its Pay, and back to billing.
    await page
      .getByRole("group", { name: "Preset amounts" })
      .getByRole("button", { name: `Add $${amount}.00` })
      .click();
    await page.waitForURL(/\/dev\/checkout\/cs_local_[0-9a-f]+$/);
    await page.getByText(`US$${amount}.00 for credit.`).waitFor();
    await page.getByRole("button", { name: "Pay" }).click();
    await page.waitForURL(/\/app\/billing\?checkout=success$/);
    await onPage(page, "Billing");
    await page.getByRole("status").filter({ hasText: "the payment is complete" }).waitFor();
    const topped = await owner.api("/customer/balance");
    expect(topped.balance).toBe(start.balance + amount);
    expect(await shownBalance(page, topped.balance)).toBe(topped.balance);

    // Now the plan: bought, shown current, and the session's account agrees.
    await card.getByRole("button", { name: `Choose ${plan.name}` }).click();
    await card.getByRole("button", { name: `Buy ${plan.name}` }).click();
    await page
      .getByRole("status")
      .filter({ hasText: `You are now on the ${plan.name} plan.` })
      .waitFor();
    await card.getByText("Current plan").waitFor();
    await planCard(page, start.plan)
      .getByRole("button", { name: `Choose ${plans.find((p) => p.code === start.plan).name}` })
      .waitFor();
    expect(await page.getByTestId("plan").getAttribute("data-value")).toBe(plan.code);
    const me = await owner.api("/auth/me");
    expect(me.plan_code).toBe(plan.code);
    const after = await owner.api("/customer/balance");
    expect(after).toMatchObject({ plan: plan.code, ports: plan.ports, included_minutes: plan.included_minutes });
    expect(after.balance).toBeCloseTo(topped.balance - plan.monthly_fee, 6);
    expect(await shownBalance(page, after.balance)).toBe(after.balance);

    // The ledger lists the top-up and the plan's fee, as GET /customer/ledger has them.
    const ledger = (await owner.api("/customer/ledger?limit=25")).items as any[];
    const topup = ledger.find((e) => e.type === "topup");
    const fee = ledger.find((e) => e.amount === -plan.monthly_fee);
    expect(topup).toMatchObject({ amount: amount, balance_after: topped.balance });
    expect(fee, "the plan fee's ledger entry").toBeTruthy();
    const rows = page.locator(".ledger tbody tr");
    await rows.filter({ hasText: "Plan fee" }).first().waitFor();
    const topupRow = page.locator(`.ledger tbody tr[data-type="topup"]`);
    expect(await topupRow.locator("td").nth(1).textContent()).toBe(`$${amount}.00`);
    expect(await topupRow.locator("td").nth(2).textContent()).toBe(`$${topped.balance.toFixed(2)}`);
    const feeRow = page.locator(`.ledger tbody tr[data-type="${fee.type}"]`);
    expect(await feeRow.locator("td").nth(1).textContent()).toBe(`-$${plan.monthly_fee.toFixed(2)}`);
    expect(await feeRow.locator("td").nth(3).textContent()).toBe(fee.description);
    expect(await rows.count()).toBe(ledger.length);

    await checkA11y(page, "billing");
    await screenshots(page, "billing");
  });
});

describe("settings", () => {
  it("sets the tax ID and a Canadian billing address, showing the tax it brings as the API has it", async (test) => {
    const owner = await newOwner();
    const { page } = await browserFor(test);
    await signIn(page, owner);
    await open(page, "/app/settings");
    await onPage(page, "Settings");
    await settled(page);

    const taxForm = page.getByRole("form", { name: "Tax ID" });
    await taxForm.getByLabel("Tax ID or VAT number").fill("123456789RT0001");
    await taxForm.getByRole("button", { name: "Save the tax ID" }).click();
    await taxForm.getByRole("status").filter({ hasText: "Saved." }).waitFor();
    expect(await owner.api("/customer/tax-id")).toEqual({ tax_id: "123456789RT0001" });

    // No address yet: exempt.
    const saved = page.getByTestId("tax-saved");
    expect(await saved.textContent()).toBe("No country set: no tax is charged; invoices are tax exempt.");

    // Canada without a province: the 5% federal GST.
    const address = page.getByRole("form", { name: "Billing address" });
    await address.getByLabel("Name on invoices").fill("Northern Carrier Inc.");
    await address.getByLabel("Address line 1").fill("1 Water St");
    await address.getByLabel("City").fill("Halifax");
    await address.getByLabel("Postal code").fill("B3J 1A1");
    await address.getByLabel("Country").fill("CA");
    await page.getByTestId("tax-preview").filter({ hasText: "Canada without a province: every invoice adds 5% GST" }).waitFor();
    await address.getByRole("button", { name: "Save the address" }).click();
    await saved.filter({ hasText: "Canada without a province: every invoice adds 5% GST (federal goods and services tax)." }).waitFor();
    expect(await owner.api("/customer/billing-address")).toMatchObject({
      country: "CA",
      province: null,
      tax_exempt: false,
      tax_components: [{ name: "GST", rate_pct: 5 }],
      tax_rate_pct: 5,
    });

    // Nova Scotia: 15% HST.
    await address.getByLabel("Province or territory").selectOption("NS");
    await page.getByTestId("tax-preview").filter({ hasText: "Canada, Nova Scotia: every invoice adds 15% HST" }).waitFor();
    await address.getByRole("button", { name: "Save the address" }).click();
    await address.getByRole("status").filter({ hasText: "Saved." }).waitFor();
    expect(await saved.textContent()).toBe("Canada, Nova Scotia: every invoice adds 15% HST (harmonized sales tax).");
    expect(await page.getByTestId("tax-preview").count()).toBe(0);
    const api = await owner.api("/customer/billing-address");
    expect(api).toEqual({
      name: "Northern Carrier Inc.",
      line1: "1 Water St",
      line2: null,
      city: "Halifax",
      postal_code: "B3J 1A1",
      country: "CA",
      province: "NS",
      tax_exempt: false,
      tax_components: [{ name: "HST", rate_pct: 15 }],
      tax_rate_pct: 15,
    });
    expect(Number(await saved.getAttribute("data-rate"))).toBe(api.tax_rate_pct);
    // The account's country and province follow the address.
    expect(await owner.api("/auth/me")).toMatchObject({ country: "CA", province: "NS", tax_id: "123456789RT0001" });

    // After a reload the page shows what was saved.
    await page.reload();
    await onPage(page, "Settings");
    await settled(page);
    expect(await page.getByRole("form", { name: "Tax ID" }).getByLabel("Tax ID or VAT number").inputValue()).toBe("123456789RT0001");
    expect(await address.getByLabel("Province or territory").inputValue()).toBe("NS");
    expect(await saved.textContent()).toBe("Canada, Nova Scotia: every invoice adds 15% HST (harmonized sales tax).");
    expect(await page.getByRole("link", { name: "Open the web dialer" }).getAttribute("href")).toBe("/dialer");

    await checkA11y(page, "settings");
    await screenshots(page, "settings");
  });
});
