// Live calls in Chromium against a real call: the owner's trunk places a call through the stack
// (sipp on both sides) that stays up for a while; /app/live, read every two seconds, shows it with
// the ports in use without a reload; its inspector counts the elapsed time while it is up, says so
// when it ends and links to the call's record; the live list is empty again. Each page is checked
// with axe-core and saved at 1440 and 390 px (test-results/portal/).
import { describe, expect, it } from "vitest";
import { browserFor, checkA11y, newOwner, onPage, placeCall, screenshots, signIn, until, withTrunk } from "./fixtures.ts";

declare const window: Record<string, unknown>;

/** "1:05" or "1:02:03" as seconds. */
const seconds = (text: string | null) => (text ?? "").split(":").reduce((total, part) => total * 60 + Number(part), 0);

describe("live calls", () => {
  it("shows a call while it is up, inspects it as it goes on, and lets it go when it ends", async (test) => {
    const owner = await withTrunk(await newOwner({ name: "Lena Live" }));
    const { page } = await browserFor(test);
    await signIn(page, owner);
    await page.getByRole("navigation", { name: "Portal" }).getByRole("link", { name: "Live", exact: true }).click();
    await onPage(page, "Live");
    await page.getByText("No call is up right now.").waitFor();
    // The page is never reloaded from here on: what changes comes from its own polling.
    await page.evaluate(() => (window.loadedOnce = true));

    const ending = placeCall(owner, "answered", { seconds: 12 });
    ending.catch(() => undefined); // awaited below; a failure before then must not go unhandled
    const live = await until(
      "the call in GET /customer/live-calls",
      async () => {
        const body = await owner.api("/customer/live-calls");
        return body.items.length === 1 ? body : null;
      },
      15_000,
      200,
    );
    const id: string = live.items[0].id;

    const row = page.locator(`[data-testid="live-row"][data-call-id="${id}"]`);
    await row.waitFor();
    await expect.poll(() => page.getByTestId("ports-in-use").textContent()).toBe(`1 of ${live.ports}`);
    expect(await page.getByTestId("live-row").count()).toBe(1);
    await expect.poll(() => row.getAttribute("data-status")).toBe("active");
    expect(await row.textContent()).toContain("14155550100");
    expect(await row.textContent()).toContain("14155550123");
    expect(await page.evaluate(() => window.loadedOnce)).toBe(true);
    await checkA11y(page, "live");
    await screenshots(page, "live");

    await row.getByRole("link", { name: "Inspect the call from 14155550100 to 14155550123" }).click();
    expect(new URL(page.url()).pathname).toBe(`/app/live/${id}`);
    await page.getByRole("heading", { level: 1, name: "Call from 14155550100 to 14155550123" }).waitFor();
    await page.getByTestId("inspector-live").waitFor();
    const elapsed = page.getByTestId("elapsed");
    const first = seconds(await elapsed.textContent());
    await expect.poll(async () => seconds(await elapsed.textContent()), { timeout: 10_000 }).toBeGreaterThan(first);
    await checkA11y(page, "inspector");
    await screenshots(page, "inspector");

    const call = await ending;
    expect(call.id).toBe(id);
    const ended = page.getByTestId("inspector-ended");
    await ended.waitFor({ timeout: 15_000 });
    expect(await ended.textContent()).toContain("This call has ended");
    expect(await page.getByTestId("inspector-live").count()).toBe(0);
    const record = ended.getByRole("link", { name: "Open the call's record" });
    expect(await record.getAttribute("href")).toBe(`/app/calls/${id}`);
    expect(await page.evaluate(() => window.loadedOnce)).toBe(true);
    await record.click();
    await onPage(page, "Calls");
    expect(new URL(page.url()).pathname).toBe(`/app/calls/${id}`);

    await page.getByRole("navigation", { name: "Portal" }).getByRole("link", { name: "Live", exact: true }).click();
    await onPage(page, "Live");
    await page.getByText("No call is up right now.").waitFor();
    expect(await page.getByTestId("live-row").count()).toBe(0);
    expect(await page.getByTestId("ports-in-use").textContent()).toBe(`0 of ${live.ports}`);
    expect((await owner.api("/customer/live-calls")).items).toEqual([]);
  });
});
