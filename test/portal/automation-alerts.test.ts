// Automation and alerts in Chromium, as a fraud desk sets them up (issue 29): an automation rule
// made on the page (a divert without a destination refused beside its field) blocks the caller of a
// spoken scam call made through sipp, the controlled number shows with the call that caused it, the
// caller's next call is refused (603), and Release on the page lets the one after it through; an
// alert rule made on the page (no delivery, and a quality rule without its MOS limit, refused beside
// their fields) with a connected channel at a local receiver, whose "Send a test" shows each
// delivery and whose e-mail arrives in the local mail view; the webhook set from an agent's link
// (the URL filled in, the secret generated on the page), its test refused once by a local receiver
// and redelivered from the deliveries list, signed with that secret. Each page is checked with
// axe-core and saved at 1440 and 390 px.
import { createServer, type IncomingHttpHeaders, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { Webhook } from "standardwebhooks";
import { afterAll, describe, expect, it } from "vitest";
import { uac, type Stack } from "../sip-node/harness.ts";
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
  until,
  withTrunk,
} from "./fixtures.ts";

/** The caller ID of the sipp scenarios (their From user), as a controlled number keeps it: digits. */
const CALLER = "14155550100";

/** A local HTTP receiver on 127.0.0.1: what it was sent, and the status it answers each request with. */
type Received = { path: string; headers: IncomingHttpHeaders; body: string };
const servers: Server[] = [];
async function receiver(answer: (n: number) => number): Promise<{ url: string; received: Received[] }> {
  const received: Received[] = [];
  const server = createServer((req, res) => {
    let body = "";
    req.on("data", (chunk) => (body += chunk));
    req.on("end", () => {
      received.push({ path: req.url ?? "", headers: req.headers, body });
      res.writeHead(answer(received.length)).end();
    });
  });
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, received };
}
afterAll(async () => {
  await Promise.all(servers.map((server) => new Promise((resolve) => server.close(resolve))));
});

describe.skipIf(!portal.transcription)("automation (needs the offline transcriber)", () => {
  it("an automation rule blocks the caller of a scam call made through sipp, and releasing it lets the next call through", async (test) => {
    const owner = await withTrunk(await newOwner());
    const { page } = await browserFor(test);
    await signIn(page, owner);
    await open(page, "/app/automation");
    await onPage(page, "Automation");
    await page.getByText("No rule yet").waitFor();
    await page.getByText("No number is under control now.").waitFor();

    // A divert needs a destination: the form says so, and the API's 422 shows beside the field.
    await page.getByRole("button", { name: "New rule" }).click();
    expect(new URL(page.url()).searchParams.get("rule")).toBe("new");
    const form = page.getByRole("form", { name: "New automation rule" });
    await form.getByLabel("Name").fill("Block scam callers");
    await form.getByLabel("Minimum fraud probability (%)").fill("50");
    await form.getByLabel("Action").selectOption("divert");
    const divert = form.getByLabel("Divert destination");
    expect(await divert.getAttribute("aria-describedby")).toBeTruthy();
    await form.getByText("Required for a divert").waitFor();
    await divert.locator("option", { hasText: "sipp destination" }).waitFor({ state: "attached" });
    await form.getByRole("button", { name: "Create the rule" }).click();
    await form
      .locator(".field.invalid")
      .filter({ has: page.getByLabel("Divert destination") })
      .getByRole("alert")
      .waitFor();
    expect(await divert.getAttribute("aria-invalid")).toBe("true");
    expect(await owner.api("/automation/rules")).toEqual([]);

    // The rule as the desk wants it: a verdict of 50 or more recommending block or review blocks
    // the caller until released (the offline analyser recommends review from 50, block from 90).
    await form.getByLabel("Action").selectOption("block");
    await form.getByRole("group", { name: "Recommendations that act" }).getByLabel("review").check();
    expect(await form.getByRole("group", { name: "Recommendations that act" }).getByLabel("block").isChecked()).toBe(true);
    await form.getByRole("button", { name: "Create the rule" }).click();
    const row = page.locator("tr", { has: page.getByRole("rowheader", { name: "Block scam callers" }) });
    await row.waitFor();
    expect(new URL(page.url()).searchParams.get("rule")).toBeNull();
    const [rule] = await owner.api("/automation/rules");
    expect(rule).toMatchObject({
      name: "Block scam callers",
      enabled: true,
      min_probability: 50,
      recommendations: ["block", "review"],
      action: "block",
      divert_destination_id: null,
      duration_hours: null,
    });
    expect(await row.locator("td").allInnerTexts()).toEqual(
      expect.arrayContaining(["Enabled", "Probability ≥ 50%, block or review", "Block", "Until released"]),
    );

    // The scam call through sipp: its verdict crosses the rule, and the caller is under control.
    // What this checks is the rule and the page, not the recogniser: on a CPU-starved machine it can
    // mishear the pcap (the verdict then rests on noise), so a call it misheard is placed once more.
    let call = await scriptedScamCall(owner);
    if (call.analysis && !["block", "review"].includes(call.analysis.recommendation)) call = await scriptedScamCall(owner);
    expect(call.analysis, `the scam call's analysis ended ${call.analysis_status}: ${call.processing_error}`).toBeTruthy();
    expect(["block", "review"], `the verdict: ${JSON.stringify(call.analysis)}`).toContain(call.analysis.recommendation);
    const control = await until(
      "the caller's control in GET /automation/controls",
      async () => (await owner.api("/automation/controls")).items.find((c: any) => c.ani === CALLER) ?? null,
      30_000,
      250,
    );
    expect(control).toMatchObject({ action: "block", rule_id: rule.id, call_id: call.id, released_at: null, expires_at: null });

    await page.reload();
    await settled(page);
    const controlled = page.locator(`tr[data-control-id="${control.id}"]`);
    await controlled.waitFor();
    expect(await controlled.getByRole("rowheader").locator(".ani").textContent()).toBe(CALLER);
    expect(await controlled.locator("td.reason").textContent()).toBe(control.reason);
    expect(control.reason).toContain("Rule 'Block scam callers'");
    expect(await controlled.getByRole("link", { name: /^The call/ }).getAttribute("href")).toBe(`/app/calls/${call.id}`);
    expect(await controlled.getByRole("link", { name: /^Calls from this number/ }).getAttribute("href")).toBe(`/app/calls?q=${CALLER}`);
    await controlled.getByText("Rule “Block scam callers”").waitFor();
    await controlled.getByText("Active").waitFor();
    await checkA11y(page, "automation");
    await screenshots(page, "automation");

    // The caller's next call is refused with 603 by the SIP node.
    const node = { node: { port: portal.sipPort } } as Stack;
    const refused = await uac(node, owner.trunk.src, "uac-rejected.xml", "14155550123", { CODE: "603", ANI: CALLER });
    expect(refused.code, refused.output).toBe(0);

    // Release on the page: the number leaves the active list, and shows released with the others.
    await controlled.getByRole("button", { name: "Release" }).click();
    await page.getByText("No number is under control now.").waitFor();
    expect((await owner.api(`/automation/controls?include_released=true`)).items[0]).toMatchObject({
      id: control.id,
      released_at: expect.any(String),
    });
    await page.getByLabel("Include released and expired").check();
    expect(new URL(page.url()).searchParams.get("released")).toBe("1");
    await controlled.getByText(/^Released /).waitFor();
    expect(await controlled.getByRole("button", { name: "Release" }).count()).toBe(0);
    await page.reload();
    await controlled.getByText(/^Released /).waitFor();

    // The caller's next call is answered again.
    // (placeCall fails unless the destination's sipp answered it and the caller's sipp saw the 200.)
    const through = await placeCall(owner, "answered", { seconds: 2 });
    expect(through.ani).toContain(CALLER);

    // The rule changed on the page: a duration, then none again (clear_duration), disabled, deleted.
    await row.getByRole("button", { name: "Edit" }).click();
    const edit = page.getByRole("form", { name: "Change the rule Block scam callers" });
    await edit.getByLabel("Control lasts (hours)").fill("24");
    await edit.getByRole("button", { name: "Save the rule" }).click();
    await row.getByText("24 h").waitFor();
    expect((await owner.api("/automation/rules"))[0]).toMatchObject({ duration_hours: 24, recommendations: ["block", "review"] });
    await row.getByRole("button", { name: "Edit" }).click();
    await edit.getByLabel("Control lasts (hours)").fill("");
    await edit.getByRole("button", { name: "Save the rule" }).click();
    await row.getByText("Until released").waitFor();
    expect((await owner.api("/automation/rules"))[0]).toMatchObject({ duration_hours: null });
    await row.getByRole("button", { name: "Disable" }).click();
    await row.getByText("Disabled").waitFor();
    await expect.poll(async () => (await owner.api("/automation/rules"))[0].enabled).toBe(false);
    await row.getByRole("button", { name: "Delete", exact: true }).click();
    await row.getByRole("button", { name: "Delete the rule" }).click();
    await page.getByText("No rule yet").waitFor();
    expect(await owner.api("/automation/rules")).toEqual([]);
  }, 420_000);
});

describe("alerts", () => {
  it("an alert rule's test arrives in the local mail view", async (test) => {
    const owner = await newOwner();
    const noc = `noc-${Date.now().toString(36)}@portal.test`;
    const hook = await receiver(() => 200);
    const { page } = await browserFor(test);
    await signIn(page, owner);
    await open(page, "/app/alerts");
    await onPage(page, "Alerts");
    await page.getByText("No alert rule yet.").waitFor();

    // A channel at the local receiver: connected, listed by host only, and tested from its row.
    await page.getByRole("button", { name: "Connect a channel" }).click();
    const connect = page.getByRole("form", { name: "Connect a channel" });
    await connect.getByLabel("Kind").selectOption("webhook");
    await connect.getByLabel("Label").fill("NOC receiver");
    await connect.getByLabel("URL").fill(`${hook.url}/channel`);
    await connect.getByRole("button", { name: "Connect" }).click();
    const channelRow = page.locator("tr", { has: page.getByRole("rowheader", { name: "NOC receiver" }) });
    await channelRow.waitFor();
    const [channel] = await owner.api("/customer/alert-channels");
    expect(channel).toMatchObject({
      kind: "webhook",
      label: "NOC receiver",
      url_host: new URL(hook.url).host,
      url_set: true,
      enabled: true,
    });
    expect(await channelRow.textContent()).not.toContain(hook.url);
    await channelRow.getByRole("button", { name: "Test", exact: true }).click();
    await channelRow.getByText("Sent").waitFor();
    expect(hook.received.map((r) => r.path)).toEqual(["/channel"]);

    // A rule with no delivery, and a quality rule without its MOS limit: refused beside the fields.
    await page.getByRole("button", { name: "New alert rule" }).click();
    const form = page.getByRole("form", { name: "New alert rule" });
    await form.getByLabel("Name", { exact: true }).fill("High-risk calls to the NOC");
    await form.getByLabel("Send an e-mail").uncheck();
    await form.getByRole("button", { name: "Create the rule" }).click();
    const noDelivery = form.locator(".check-field", { has: page.getByLabel("Send an e-mail") }).getByRole("alert");
    expect(await noDelivery.textContent()).toMatch(/needs at least one delivery/);
    await form.getByLabel("Trigger").selectOption("quality");
    await form.getByLabel("Send an e-mail").check();
    await form.getByRole("button", { name: "Create the rule" }).click();
    await form
      .locator(".field.invalid", { has: page.getByLabel("MOS limit") })
      .getByRole("alert")
      .waitFor();
    expect(await owner.api("/customer/alert-rules")).toEqual([]);

    // Every field: a fraud rule by e-mail to the NOC and to the channel, with attachments.
    await form.getByLabel("Trigger").selectOption("fraud");
    await form.getByLabel("Minimum fraud probability (%)").fill("80");
    await form.getByLabel("Categories").fill("credit_card_scam, bank_impersonation");
    await form.getByRole("group", { name: "Recommendations" }).getByLabel("block").check();
    await form.getByLabel("Recipients").fill(noc);
    await form.getByRole("group", { name: "Connected channels" }).getByLabel("NOC receiver").check();
    await form.getByLabel("At most one alert every (minutes)").fill("15");
    await form.getByLabel("Transcript").check();
    await form.getByLabel("Recording").check();
    await form.getByRole("button", { name: "Create the rule" }).click();
    const ruleRow = page.locator("tr", { has: page.getByRole("rowheader", { name: "High-risk calls to the NOC" }) });
    await ruleRow.waitFor();
    const [rule] = await owner.api("/customer/alert-rules");
    expect(rule).toMatchObject({
      name: "High-risk calls to the NOC",
      enabled: true,
      trigger: "fraud",
      min_probability: 80,
      categories: ["credit_card_scam", "bank_impersonation"],
      recommendations: ["block"],
      recipients: [noc],
      channel_ids: [channel.id],
      email_enabled: true,
      throttle_minutes: 15,
      include_transcript: true,
      include_recording: true,
      include_sip_log: false,
      include_pcap: false,
    });

    // Send a test: the e-mail and the channel, each with its result; the mail is in the outbox.
    await ruleRow.getByRole("button", { name: "Send a test" }).click();
    const result = page.getByTestId("alert-test-result");
    await result.waitFor();
    const email = result.locator('tr[data-delivery="email"]');
    expect(await email.getByRole("rowheader").textContent()).toBe(`E-mail to ${noc}`);
    // npm start sends no mail: the test e-mail is kept in the outbox, which the local mail view shows.
    await email.getByText("Kept in the local outbox").waitFor();
    expect(await email.getByRole("link", { name: "Open the local mail view" }).getAttribute("href")).toBe("/dev/mail");
    expect(await email.locator("td.num").textContent()).toMatch(/^\d[\d,]* ms$/);
    const viaChannel = result.locator('tr[data-delivery="channel"]');
    expect(await viaChannel.getByRole("rowheader").textContent()).toBe("NOC receiver");
    await viaChannel.getByText("Sent", { exact: true }).waitFor();
    const mail = await until(
      `the test alert to ${noc} in GET /dev/mail.json`,
      async () => {
        const outbox = await request(`/dev/mail.json?to=${encodeURIComponent(noc)}&limit=5`);
        return (outbox.body?.messages ?? []).find((m: any) => m.subject === "[Call Shield] Test alert: High-risk calls to the NOC") ?? null;
      },
      15_000,
      200,
    );
    expect(mail.to).toEqual([noc]);
    expect(mail.text).toContain('the alert rule "High-risk calls to the NOC"');
    expect(hook.received.map((r) => r.path)).toEqual(["/channel", "/channel"]);
    await checkA11y(page, "alerts with a rule's test");

    // With e-mail off and its one channel disabled, a rule has nothing to try: 409 no_delivery.
    const quiet = await owner.api("/customer/alert-rules", {
      body: { name: "Channel only", email_enabled: false, channel_ids: [channel.id] },
    });
    await page.reload();
    await channelRow.getByRole("button", { name: "Disable" }).click();
    await channelRow.getByText("Disabled").waitFor();
    const quietRow = page.locator(`tr[data-rule-id="${quiet.id}"]`);
    await quietRow.getByRole("button", { name: "Send a test" }).click();
    await page.getByText("Nothing to send the test through").waitFor();

    // Removing the channel asks first.
    await channelRow.getByRole("button", { name: "Remove", exact: true }).click();
    await channelRow.getByRole("button", { name: "Remove the channel" }).click();
    await page.getByText("No channel connected.").waitFor();
    expect(await owner.api("/customer/alert-channels")).toEqual([]);
  });

  it("the webhook's test is delivered to a local receiver and shows in deliveries", async (test) => {
    const owner = await newOwner();
    // The receiver refuses its first request (503) and accepts every later one.
    const hook = await receiver((n) => (n === 1 ? 503 : 200));
    const url = `${hook.url}/call-shield`;
    const { page } = await browserFor(test);
    await signIn(page, owner);

    // An agent's set_webhook links here with the URL: the form has it, the person adds the secret.
    await open(page, `/app/alerts?webhook_url=${encodeURIComponent(url)}`);
    await onPage(page, "Alerts");
    const webhook = page.getByRole("region", { name: "Webhook", exact: true });
    await webhook.getByText("An agent proposed this URL").waitFor();
    expect(await webhook.getByTestId("webhook-secret-state").textContent()).toBe("Not set");
    const settings = webhook.getByRole("form", { name: "Webhook settings" });
    expect(await settings.getByLabel("Webhook URL").inputValue()).toBe(url);
    const secretBox = settings.getByLabel("Signing secret", { exact: true });
    expect(await secretBox.getAttribute("type")).toBe("password");
    await settings.getByRole("button", { name: "Save the webhook" }).click();
    await settings.getByText("A webhook needs its signing secret").waitFor();
    expect(await owner.api("/customer/webhook")).toEqual({ url: null, secret_set: false });

    await settings.getByRole("button", { name: "Generate a secret" }).click();
    const secret = (await settings.locator(".secret code").textContent())!;
    expect(secret).toMatch(/^whsec_[A-Za-z0-9+/]{32}$/);
    expect(await secretBox.inputValue()).toBe(secret);
    await settings.getByRole("button", { name: "Save the webhook" }).click();
    await webhook.getByText(`Saved: events go to ${url}.`).waitFor();
    expect(await owner.api("/customer/webhook")).toEqual({ url, secret_set: true });
    await expect.poll(() => webhook.getByTestId("webhook-secret-state").textContent()).toBe("Set");
    await expect.poll(() => webhook.getByTestId("webhook-url").textContent()).toBe(url);
    expect(new URL(page.url()).searchParams.get("webhook_url")).toBeNull();
    expect(await settings.locator(".secret").count(), "the secret is shown only until saved").toBe(0);
    expect(await page.content()).not.toContain(secret);

    // The test: refused once by the receiver, as the page shows and the deliveries list keeps.
    await settings.getByRole("button", { name: "Send a test" }).click();
    const outcome = webhook.getByTestId("webhook-test-result");
    await outcome.getByText("Not delivered").waitFor();
    expect(await outcome.textContent()).toContain("HTTP 503");
    const [first] = (await owner.api("/customer/webhook/deliveries")).items;
    expect(first).toMatchObject({ kind: "webhook.test", status: "failed", attempts: 1, status_code: 503, url });
    const delivery = webhook.locator(`tr[data-delivery-id="${first.id}"]`);
    await delivery.getByText("Failed").waitFor();
    expect(await delivery.getByRole("rowheader").textContent()).toContain("Test event");
    expect(await delivery.locator("td").allInnerTexts()).toEqual(expect.arrayContaining(["Failed", "1", "HTTP 503"]));

    // Redeliver: the same event, accepted this time; its attempts, oldest first.
    await delivery.getByRole("button", { name: "Redeliver" }).click();
    await delivery.getByText("Delivered", { exact: true }).waitFor();
    expect(await delivery.locator("td").allInnerTexts()).toEqual(expect.arrayContaining(["Delivered", "2", "HTTP 200"]));
    expect((await owner.api(`/customer/webhook/deliveries/${first.id}`)).attempt_log.map((a: any) => a.status_code)).toEqual([503, 200]);
    await delivery.getByRole("button", { name: "Attempts" }).click();
    const attempts = webhook.locator("ol.attempts li");
    await expect
      .poll(() => attempts.allInnerTexts())
      .toEqual([expect.stringMatching(/^Attempt 1, .*: HTTP 503/), expect.stringMatching(/^Attempt 2, .*: HTTP 200/)]);

    // Both requests were the one event, signed with the secret generated on the page.
    expect(hook.received).toHaveLength(2);
    const ids = hook.received.map((r) => r.headers["webhook-id"]);
    expect(ids).toEqual([first.event_id, first.event_id]);
    for (const r of hook.received) {
      const event = new Webhook(secret).verify(r.body, r.headers as Record<string, string>) as any;
      expect(event).toMatchObject({ type: "webhook.test", data: { account_id: owner.id } });
    }

    // A second test, accepted at once, heads the list.
    await settings.getByRole("button", { name: "Send a test" }).click();
    await outcome.getByText("Delivered", { exact: true }).waitFor();
    expect(await outcome.textContent()).toContain("HTTP 200");
    await expect.poll(async () => webhook.locator("tbody tr[data-delivery-id]").count()).toBe(2);
    await checkA11y(page, "alerts");
    await screenshots(page, "alerts");
  });
});
