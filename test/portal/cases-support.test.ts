// Cases and support tickets in Chromium, as a user works them: a case opened from the list, moved
// to review, assigned to an active member (a deactivated one is not offered) and commented on,
// found again through a status filter the URL keeps, a case about a real call (sipp) showing that
// call, and another account's case not found; a support ticket opened, written to, closed and
// reopened by a new message, and the list filtered by status and kind in the URL. What each page
// shows is checked against the API; each page is checked with axe-core and saved at 1440 and 390 px.
import { describe, expect, it } from "vitest";
import {
  browserFor,
  checkA11y,
  inviteMember,
  newOwner,
  onPage,
  open,
  placeCall,
  screenshots,
  settled,
  signIn,
  withTrunk,
} from "./fixtures.ts";
import type { Page } from "playwright-core";

const UUID = "[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}";

/** The text of the <dd> after the <dt> named `term` in the page's facts. */
const fact = (page: Page, scope: string, term: string) =>
  page
    .locator(`section[aria-labelledby="${scope}"] dl.facts dt`, { hasText: new RegExp(`^${term}$`) })
    .locator("xpath=following-sibling::dd[1]");

/** The titles (or subjects) of the rows the list's table shows. */
const rowTitles = async (page: Page) => page.locator("table tbody td.title a").allTextContents();

describe("cases", () => {
  it("opens a case, reviews and assigns it, comments on it, filters the list, and shows a case's call", async (test) => {
    const owner = await withTrunk(await newOwner());
    // The call goes through sipp while the browser works; its case comes last.
    const calling = placeCall(owner, "answered", { seconds: 2 });
    calling.catch(() => undefined);
    const member = await inviteMember(owner, { name: "Mia Member" });
    const gone = await inviteMember(owner, { name: "Gus Gone" });
    await owner.api(`/customer/users/${gone.id}`, { method: "PATCH", body: { is_active: false } });
    const stranger = await newOwner();
    const strangersCase = await stranger.api("/cases", { body: { title: "Another account's case", severity: "low" } });
    const untouched = await owner.api("/cases", { body: { title: "A case left open", severity: "low" } });

    const { page } = await browserFor(test);
    await signIn(page, owner);
    await open(page, "/app/cases");
    await onPage(page, "Cases");
    await page.getByRole("button", { name: "New case" }).click();
    const form = page.getByRole("form", { name: "New case" });
    await form.getByLabel("Title").fill("Caller posing as the bank");
    await form.getByLabel("Description").fill("Asked for the card's PIN.\nSecond line kept.");
    await form.getByLabel("Severity").selectOption("high");
    await form.getByRole("button", { name: "Open the case" }).click();
    await page.waitForURL(new RegExp(`/app/cases/${UUID}$`));
    const caseId = new URL(page.url()).pathname.split("/").pop()!;
    const created = await owner.api(`/cases/${caseId}`);
    await page.getByRole("heading", { level: 1, name: `Case #${created.case_no}: Caller posing as the bank` }).waitFor();
    expect(created).toMatchObject({ title: "Caller posing as the bank", severity: "high", status: "open", call_id: null });
    expect(created.description).toBe("Asked for the card's PIN.\nSecond line kept.");
    expect(await page.locator(".case-description").innerText()).toBe("Asked for the card's PIN.\nSecond line kept.");
    await page.getByText("Not about one call.").waitFor();

    // Status and assignee: only the account's active users are offered.
    const changes = page.getByRole("form", { name: "Status, severity and assignee" });
    const assignee = changes.getByLabel("Assigned to");
    await assignee.locator("option", { hasText: "Mia Member" }).waitFor({ state: "attached" });
    const offered = await assignee.locator("option").allTextContents();
    expect(offered).toContain("Mia Member");
    expect(offered.join("|")).not.toContain("Gus Gone");
    await changes.getByLabel("Status").selectOption("in_review");
    await assignee.selectOption({ label: "Mia Member" });
    await changes.getByRole("button", { name: "Save changes" }).click();
    await changes.getByRole("status").filter({ hasText: "Saved." }).waitFor();
    await fact(page, "case-facts", "Status").filter({ hasText: "in review" }).waitFor();
    expect(await fact(page, "case-facts", "Assigned to").textContent()).toBe("Mia Member");

    const comments = page.getByRole("form", { name: "New comment" });
    await comments.getByLabel("New comment").fill("Blocked the number at the switch.");
    await comments.getByRole("button", { name: "Add comment" }).click();
    const thread = page.getByRole("list", { name: "Comments, oldest first" });
    await thread.getByRole("listitem").filter({ hasText: "Blocked the number at the switch." }).waitFor();
    expect(await comments.getByLabel("New comment").inputValue()).toBe("");

    const saved = await owner.api(`/cases/${caseId}`);
    expect(saved).toMatchObject({ status: "in_review", assigned_to: member.id, assigned_to_label: "Mia Member", severity: "high" });
    const userComments = saved.comments.filter((c: any) => c.author_kind === "user");
    expect(userComments.map((c: any) => c.body)).toEqual(["Blocked the number at the switch."]);
    // The thread shows every comment the API has (the status and assignee changes too), in order.
    const shown = await thread.locator(".thread-body").allTextContents();
    expect(shown).toEqual(saved.comments.map((c: any) => c.body));
    expect(shown.some((body) => /Mia Member/.test(body))).toBe(true);
    await checkA11y(page, "case");
    await screenshots(page, "case");

    // The list, filtered by status: the filter is in the URL and survives a reload.
    await page.getByRole("navigation", { name: "Portal" }).getByRole("link", { name: "Cases" }).click();
    await onPage(page, "Cases");
    await settled(page);
    await page.locator("table tbody tr", { hasText: untouched.title }).waitFor();
    await page.getByRole("form", { name: "Filter cases" }).getByLabel("Status").selectOption("in_review");
    await page.waitForURL(/[?&]status=in_review/);
    await page.locator("table tbody tr", { hasText: untouched.title }).waitFor({ state: "detached" });
    expect(await rowTitles(page)).toEqual(["Caller posing as the bank"]);
    await page.reload();
    await onPage(page, "Cases");
    await settled(page);
    await page.locator("table tbody tr").first().waitFor();
    expect(new URL(page.url()).searchParams.get("status")).toBe("in_review");
    expect(await page.getByRole("form", { name: "Filter cases" }).getByLabel("Status").inputValue()).toBe("in_review");
    expect(await rowTitles(page)).toEqual(["Caller posing as the bank"]);
    const row = page.locator("table tbody tr", { hasText: "Caller posing as the bank" });
    expect(await row.locator("td").nth(1).textContent()).toBe("in review");
    expect(await row.locator("td").nth(3).textContent()).toBe("Mia Member");
    expect(await row.locator("td.num").textContent()).toBe(String(saved.comments.length));
    const listed = await owner.api("/cases?status=in_review");
    expect(listed.items.map((c: any) => c.id)).toEqual([caseId]);
    await checkA11y(page, "cases");
    await screenshots(page, "cases");

    // A case about a real call: the call's facts and a link to its page.
    const call = await calling;
    const aboutCall = await owner.api("/cases", { body: { title: "About a sipp call", severity: "medium", call_id: call.id } });
    await open(page, `/app/cases/${aboutCall.id}`);
    await page.getByRole("heading", { level: 1, name: `Case #${aboutCall.case_no}: About a sipp call` }).waitFor();
    expect(await fact(page, "case-call", "From").textContent()).toBe(call.ani ?? "—");
    expect(await fact(page, "case-call", "To").textContent()).toBe(call.dialed);
    expect(await fact(page, "case-call", "Status").textContent()).toBe(call.status.replace(/_/g, " "));
    const callLink = page.getByRole("link", { name: "Open the call" });
    expect(await callLink.getAttribute("href")).toBe(`/app/calls/${call.id}`);
    await callLink.click();
    await page.waitForURL(`**/app/calls/${call.id}`);
    await onPage(page, "Calls");

    // Another account's case is not this account's to see.
    await open(page, `/app/cases/${strangersCase.id}`);
    await page.getByRole("heading", { level: 1, name: "Case not found" }).waitFor();
    expect((await owner.request(`/cases/${strangersCase.id}`)).status).toBe(404);
  });
});

describe("support tickets", () => {
  it("opens a ticket, writes to it, closes it and reopens it with a message; the list filters by status and kind", async (test) => {
    const owner = await newOwner();
    const question = await owner.api("/support/tickets", {
      body: { kind: "question", subject: "How are verdicts made?", body: "Curious." },
    });
    await owner.api(`/support/tickets/${question.id}`, { method: "PATCH", body: { status: "closed" } });

    const { page } = await browserFor(test);
    await signIn(page, owner);
    await open(page, "/app/support");
    await onPage(page, "Support");
    await page.getByRole("button", { name: "New ticket" }).click();
    const form = page.getByRole("form", { name: "New ticket" });
    await form.getByLabel("Kind").selectOption("bug");
    await form.getByLabel("Subject").fill("Report PDF is empty");
    await form.getByLabel("Message").fill("The PDF of yesterday's call has no pages.");
    await form.getByRole("button", { name: "Send to support" }).click();
    await page.waitForURL(new RegExp(`/app/support/${UUID}$`));
    const ticketId = new URL(page.url()).pathname.split("/").pop()!;
    const created = await owner.api(`/support/tickets/${ticketId}`);
    expect(created).toMatchObject({
      kind: "bug",
      subject: "Report PDF is empty",
      body: "The PDF of yesterday's call has no pages.",
      status: "open",
    });
    await page.getByRole("heading", { level: 1, name: `Ticket #${created.ticket_no}: Report PDF is empty` }).waitFor();
    expect(await fact(page, "ticket-facts", "Kind").textContent()).toBe("Bug");
    const thread = page.getByRole("list", { name: "Messages, oldest first" });
    await thread.getByRole("listitem").filter({ hasText: "The PDF of yesterday's call has no pages." }).waitFor();

    const messages = page.getByRole("form", { name: "New message" });
    await messages.getByLabel("New message").fill("It happens with every call of the day.");
    await messages.getByRole("button", { name: "Send", exact: true }).click();
    await thread.getByRole("listitem").filter({ hasText: "It happens with every call of the day." }).waitFor();

    // Closing stamps closed_at; a message on a closed ticket reopens it.
    await page.getByRole("button", { name: "Close the ticket" }).click();
    await page.getByRole("button", { name: "Reopen the ticket" }).waitFor();
    await fact(page, "ticket-facts", "Status").filter({ hasText: "closed" }).waitFor();
    const closed = await owner.api(`/support/tickets/${ticketId}`);
    expect(closed.status).toBe("closed");
    expect(closed.closed_at).toEqual(expect.any(String));
    expect(await fact(page, "ticket-facts", "Closed").textContent()).toMatch(/\d{1,2}:\d{2}:\d{2}/);
    await messages.getByText("This ticket is closed: sending a message reopens it.").waitFor();
    await checkA11y(page, "ticket");
    await screenshots(page, "ticket");

    await messages.getByLabel("New message").fill("Still empty today.");
    await messages.getByRole("button", { name: "Send and reopen" }).click();
    await thread.getByRole("listitem").filter({ hasText: "Still empty today." }).waitFor();
    await page.getByRole("button", { name: "Close the ticket" }).waitFor();
    await fact(page, "ticket-facts", "Status").filter({ hasText: "open" }).waitFor();
    const reopened = await owner.api(`/support/tickets/${ticketId}`);
    expect(reopened.status).toBe("open");
    expect(reopened.messages.map((m: any) => m.body)).toEqual(["It happens with every call of the day.", "Still empty today."]);
    expect(await thread.locator(".thread-body").allTextContents()).toEqual([reopened.body, ...reopened.messages.map((m: any) => m.body)]);

    // The list: status and kind filters in the URL, kept across a reload.
    await page.getByRole("navigation", { name: "Portal" }).getByRole("link", { name: "Support" }).click();
    await onPage(page, "Support");
    await settled(page);
    await page.locator("table tbody tr", { hasText: question.subject }).waitFor();
    expect((await rowTitles(page)).sort()).toEqual(["How are verdicts made?", "Report PDF is empty"]);
    const filters = page.getByRole("form", { name: "Filter tickets" });
    await filters.getByLabel("Status").selectOption("closed");
    await page.waitForURL(/[?&]status=closed/);
    await page.locator("table tbody tr", { hasText: "Report PDF is empty" }).waitFor({ state: "detached" });
    expect(await rowTitles(page)).toEqual(["How are verdicts made?"]);
    await filters.getByLabel("Status").selectOption("open");
    await page.waitForURL(/[?&]status=open/);
    await filters.getByLabel("Kind").selectOption("bug");
    await page.waitForURL(/[?&]kind=bug/);
    await page.reload();
    await onPage(page, "Support");
    await settled(page);
    await page.locator("table tbody tr").first().waitFor();
    const params = new URL(page.url()).searchParams;
    expect([params.get("status"), params.get("kind")]).toEqual(["open", "bug"]);
    expect(await filters.getByLabel("Status").inputValue()).toBe("open");
    expect(await filters.getByLabel("Kind").inputValue()).toBe("bug");
    expect(await rowTitles(page)).toEqual(["Report PDF is empty"]);
    const row = page.locator("table tbody tr", { hasText: "Report PDF is empty" });
    expect(await row.locator("td").nth(1).textContent()).toBe("Bug");
    expect(await row.locator("td").nth(2).textContent()).toBe("open");
    const listed = await owner.api("/support/tickets?status=open&kind=bug");
    expect(listed.items.map((t: any) => t.id)).toEqual([ticketId]);
    expect(await row.locator("td.num").textContent()).toBe(String(listed.items[0].message_count));
    await checkA11y(page, "support");
    await screenshots(page, "support");
  });
});
