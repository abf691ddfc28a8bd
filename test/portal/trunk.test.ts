// The trunk page in Chromium against the stack, as a carrier sets its trunk up: a wide range
// whitelisted on the page waits for proof of control, sipp sends an OPTIONS from an address of the
// range and the code of our answer, typed into the page, verifies it (then it is changed in place
// and deleted); a destination added with a digest credential that is never shown again, checked
// with "Check now" against a sipp UAS answering OPTIONS (round trip shown), its credential cleared,
// and a voice-AI destination filled from the provider's defaults; two destinations behind sipp
// UASs and a routing rule that sends sipp's next call to the second, as the page's "which
// destination would take this number?" box said, and back once the rule is disabled. Refusals
// (422 next to its field, 409 of another account's range) show where they belong. axe-core on the
// page, screenshots at 1440 and 390 px (test-results/portal/trunk-*.png).
import { closeSync, existsSync, mkdtempSync, openSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Locator, Page } from "playwright-core";
import { describe, expect, it } from "vitest";
import { freeUdpPort, sipp, uas } from "../sip-node/harness.ts";
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
} from "./fixtures.ts";

const SCENARIOS = new URL("./scenarios/", import.meta.url).pathname;

/** Waits until the Setup navigation marks Trunk as the current page and the page has its data. */
async function onTrunk(page: Page): Promise<void> {
  await onPage(page, "Trunk");
  await settled(page);
}

/**
 * A /22 of loopback addresses (127.1.n.0 to 127.1.n+3.255) no other test of the run uses: the
 * accounts' own sources are 127.0.x.y (fixtures.ts claimSource), and a block is claimed by
 * creating a file named after it, as those are.
 */
function claimBlock(): number {
  for (let n = 0; n < 256; n += 4) {
    try {
      closeSync(openSync(join(portal.sourcesDir, `block-127.1.${n}.0-22`), "wx"));
      return n;
    } catch {
      // claimed by another test
    }
  }
  throw new Error("no loopback block left");
}

/**
 * The proof code of the range holding `src`: sipp sends an OPTIONS from `src` to the stack's SIP
 * port (test/portal/scenarios/uac-options.xml) and logs the X-Call-Shield-Proof of the 200. Tried
 * again until the node has the range (its whitelist follows the API within a few seconds).
 */
async function proofCodeFrom(src: string): Promise<string> {
  return until(
    `the proof code in the answer to an OPTIONS from ${src}`,
    async () => {
      const log = join(mkdtempSync(join(tmpdir(), "trunk-proof-")), "sipp.log");
      const run = await sipp(
        [
          "-sf",
          join(SCENARIOS, "uac-options.xml"),
          "-i",
          src,
          "-p",
          "0",
          "-s",
          "ping",
          "-trace_logs",
          "-log_file",
          log,
          `127.0.0.1:${portal.sipPort}`,
        ],
        5,
      );
      const code = existsSync(log) ? /proof=\s*([0-9A-Z]{16})/.exec(readFileSync(log, "utf8"))?.[1] : undefined;
      return run.code === 0 && code ? code : null;
    },
    45_000,
    500,
  );
}

/** The field (label, input, its 422) that holds the input labelled `label` in `scope`. */
const fieldOf = (scope: Locator, label: string) => scope.locator(".field", { has: scope.page().getByLabel(label, { exact: true }) });

/** The destination card headed `name`. */
const card = (page: Page, name: string) => page.locator("article.trunk-dest", { has: page.getByRole("heading", { level: 3, name }) });

describe("the trunk page", () => {
  it("whitelists a range and proves it with an OPTIONS sent by sipp from that address", async (test) => {
    const owner = await newOwner();
    const stranger = await newOwner();
    const n = claimBlock();
    const range = `127.1.${n}.0/23`;
    const strangers = `127.1.${n + 2}.0/24`;
    await stranger.api("/customer/ips", { body: { cidr: strangers, label: "Another carrier" } });
    const info = await owner.api("/customer/network-info");

    const { page } = await browserFor(test);
    await signIn(page, owner);
    await open(page, "/app/trunk");
    await onTrunk(page);
    const network = await page.getByTestId("network-info").innerText();
    expect(network).toContain(info.ingress_host);
    expect(network).toContain(String(info.ingress_port));
    await page.getByText("No address yet").waitFor();

    const form = page.getByRole("form", { name: "Whitelist an address or range" });
    const cidr = form.getByLabel("Address or range (CIDR)", { exact: true });
    const add = form.getByRole("button", { name: "Add to the whitelist" });
    // 422 beside its field: wider than a /16.
    await cidr.fill("127.1.0.0/8");
    await add.click();
    const cidrError = fieldOf(form, "Address or range (CIDR)").locator(".field-error");
    await cidrError.waitFor();
    expect(await cidrError.innerText()).not.toBe("");
    expect(await cidr.getAttribute("aria-invalid")).toBe("true");
    // 409: a range overlapping another account's.
    await cidr.fill(strangers);
    await add.click();
    await form.getByRole("alert").filter({ hasText: "overlaps a range registered to another account" }).waitFor();
    expect(await owner.api("/customer/ips")).toEqual([]);

    // The range: wider than a /24, it waits for proof.
    await cidr.fill(range);
    await form.getByLabel("Label", { exact: true }).fill("Lab range");
    await add.click();
    await form
      .getByRole("status")
      .filter({ hasText: `${range} added. It admits no calls yet` })
      .waitFor();
    const row = page.locator("tr[data-ip-id]", { hasText: range });
    await row.getByText("Waiting for proof or approval").waitFor();
    const [entry] = await owner.api("/customer/ips");
    expect(entry).toMatchObject({ cidr: range, label: "Lab range", enabled: true, admits_calls: false, verification: "unverified" });
    expect(await row.getAttribute("data-ip-id")).toBe(entry.id);
    expect(await row.innerText()).toContain(entry.pending_reason);

    await row.getByRole("button", { name: "Prove control" }).click();
    const panel = page.getByRole("region", { name: `Prove control of ${range}` });
    const explained = await panel.innerText();
    expect(explained).toContain(`${info.ingress_host}:${info.ingress_port}`);
    expect(explained).toContain("X-Call-Shield-Proof");
    expect(explained).toContain("Waiting for proof or approval means that calls from");
    // A wrong code: 422 beside the code's field.
    await panel.getByLabel("Proof code", { exact: true }).fill("0000000000000000");
    await panel.getByRole("button", { name: "Verify" }).click();
    await fieldOf(panel, "Proof code").locator(".field-error").filter({ hasText: "does not match" }).waitFor();

    // The code our answer carries to sipp at an address of the range.
    const code = await proofCodeFrom(`127.1.${n}.5`);
    await panel.getByLabel("Proof code", { exact: true }).fill(code);
    await panel.getByRole("button", { name: "Verify" }).click();
    await panel.waitFor({ state: "detached" });
    await row.getByText("Admits calls").waitFor();
    await row.getByText(/^Verified /).waitFor();
    const [verified] = await owner.api("/customer/ips");
    expect(verified).toMatchObject({ id: entry.id, verification: "verified", admits_calls: true, pending_reason: null });
    expect(verified.verified_at).not.toBeNull();
    await checkA11y(page, "trunk (whitelist)");

    // Label, dial prefix and enabled change in place; the range itself is not offered.
    await row.getByRole("button", { name: "Edit" }).click();
    const edit = page.getByRole("form", { name: `Edit ${range}` });
    expect(await edit.getByLabel("Address or range (CIDR)", { exact: true }).count()).toBe(0);
    await edit.getByLabel("Label", { exact: true }).fill("Lab range, proven");
    await edit.getByLabel("Dial prefix", { exact: true }).fill("4711");
    await edit.getByLabel("Enabled", { exact: true }).uncheck();
    await edit.getByRole("button", { name: "Save" }).click();
    await edit.waitFor({ state: "detached" });
    await row.getByText("Disabled", { exact: true }).waitFor();
    expect(await row.innerText()).toContain("Lab range, proven");
    const [changed] = await owner.api("/customer/ips");
    expect(changed).toMatchObject({
      id: entry.id,
      cidr: range,
      label: "Lab range, proven",
      dial_prefix: "4711",
      enabled: false,
      verification: "verified",
    });

    await row.getByRole("button", { name: "Delete" }).click();
    await row.getByRole("button", { name: "Yes, delete" }).click();
    await row.waitFor({ state: "detached" });
    await page.getByText("No address yet").waitFor();
    expect(await owner.api("/customer/ips")).toEqual([]);
  });

  it("adds a destination with a credential never shown again and checks it against a sipp UAS", async (test) => {
    const owner = await newOwner();
    const port = await freeUdpPort();
    const password = `digest-${Math.random().toString(36).slice(2)}-secret`;
    const providers = await owner.api("/customer/voice-providers");
    const elevenlabs = providers.find((p: any) => p.key === "elevenlabs");

    const { page } = await browserFor(test);
    await signIn(page, owner);
    await open(page, "/app/trunk");
    await onTrunk(page);
    await page.getByRole("button", { name: "New destination" }).click();
    const form = page.getByRole("form", { name: "New destination" });
    // 422 beside its field.
    await form.getByLabel("Host", { exact: true }).fill("not a host");
    await form.getByLabel("Port", { exact: true }).fill(String(port));
    await form.getByRole("button", { name: "Add destination" }).click();
    await fieldOf(form, "Host").locator(".field-error").filter({ hasText: "host must be a hostname or an IP address" }).waitFor();

    await form.getByLabel("Host", { exact: true }).fill("127.0.0.1");
    await form.getByLabel("Label", { exact: true }).fill("Checked SBC");
    await form.getByLabel("Digest username", { exact: true }).fill("shield-user");
    await form.getByLabel("Digest password", { exact: true }).fill(password);
    await form.getByLabel("Digest realm", { exact: true }).fill("sbc.test");
    await form.getByRole("button", { name: "Add destination" }).click();
    await page.getByRole("status").filter({ hasText: "Destination Checked SBC added. Its credential is stored" }).waitFor();
    const sbc = card(page, "Checked SBC");
    const credential = sbc.locator('[data-secret="credential"]');
    expect(await credential.getByTestId("secret-state").innerText()).toBe("Set");
    const [created] = await owner.api("/customer/destinations");
    expect(created).toMatchObject({
      host: "127.0.0.1",
      port,
      transport: "udp",
      kind: "sip",
      label: "Checked SBC",
      has_credential: true,
      monitor_status: "unknown",
    });
    // Never shown again: not in the API's answer, not in the page, not in a box.
    const listed = JSON.stringify(await owner.api("/customer/destinations"));
    expect(listed).not.toContain(password);
    expect(listed).not.toContain("shield-user");
    expect(await page.content()).not.toContain(password);
    await credential.getByRole("button", { name: "Replace the digest credential" }).click();
    expect(await credential.getByLabel("Password", { exact: true }).inputValue()).toBe("");
    await credential.getByRole("button", { name: "Replace the digest credential" }).click();

    // Check now: one OPTIONS to a sipp UAS that answers it.
    const destination = uas("uas-options.xml", port);
    await destination.listening;
    await sbc.getByRole("button", { name: "Check now Checked SBC" }).click();
    const monitor = sbc.getByTestId("monitor");
    await monitor.locator('[data-field="code"]', { hasText: "200" }).waitFor();
    expect((await destination).code).toBe(0);
    const [checked] = await owner.api("/customer/destinations");
    expect(checked).toMatchObject({ monitor_status: "up", monitor_last_code: 200, monitor_enabled: true });
    expect(checked.monitor_rtt_ms).toBeGreaterThanOrEqual(0);
    expect(await monitor.locator('[data-field="rtt"]').innerText()).toBe(`${checked.monitor_rtt_ms} ms`);
    expect(await sbc.locator(".chips").innerText()).toContain("Up");
    await sbc
      .getByRole("status")
      .filter({ hasText: `Answered 200 in ${checked.monitor_rtt_ms} ms.` })
      .waitFor();

    // Clear, then Set again: the state follows, the secret never comes back.
    await credential.getByRole("button", { name: "Clear the digest credential" }).click();
    await credential.getByText("Credential cleared.").waitFor();
    await credential
      .getByTestId("secret-state")
      .filter({ hasText: /^Not set$/ })
      .waitFor();
    expect((await owner.api("/customer/destinations"))[0].has_credential).toBe(false);
    await credential.getByRole("button", { name: "Set the digest credential" }).click();
    await credential.getByLabel("Username", { exact: true }).fill("shield-user-2");
    await credential.getByLabel("Password", { exact: true }).fill(`${password}-2`);
    await credential.getByRole("button", { name: "Save credential" }).click();
    await credential.getByText("Credential stored. It is not shown again.").waitFor();
    await credential.getByTestId("secret-state").filter({ hasText: /^Set$/ }).waitFor();
    expect((await owner.api("/customer/destinations"))[0].has_credential).toBe(true);
    expect(await page.content()).not.toContain(`${password}-2`);

    // Every other field changes in place; a config that is not a JSON object is refused beside its field.
    await sbc.getByRole("button", { name: "Edit" }).click();
    const edit = page.getByRole("form", { name: "Change destination Checked SBC" });
    await edit.getByLabel("Tech prefix", { exact: true }).fill("7788#");
    await edit.getByLabel("Processing", { exact: true }).selectOption("record_only");
    await edit.getByLabel("Sample rate (one call in)", { exact: true }).fill("10");
    await edit.getByLabel("Sample mode", { exact: true }).selectOption("record");
    await edit.getByLabel("Transfers", { exact: true }).selectOption("refer");
    await edit.getByLabel("Config (JSON object)", { exact: true }).fill("[1, 2]");
    await edit.getByRole("button", { name: "Save changes" }).click();
    await fieldOf(edit, "Config (JSON object)").locator(".field-error").filter({ hasText: "must be a JSON object" }).waitFor();
    await edit.getByLabel("Config (JSON object)", { exact: true }).fill('{"language": "de"}');
    await edit.getByRole("button", { name: "Save changes" }).click();
    await edit.waitFor({ state: "detached" });
    await sbc.getByText("One call in 10").waitFor();
    expect((await owner.api("/customer/destinations"))[0]).toMatchObject({
      tech_prefix: "7788#",
      processing: "record_only",
      sample_rate: 10,
      sample_mode: "record",
      transfer_mode: "refer",
      config: { language: "de" },
      has_credential: true,
    });

    // A voice-AI agent: the provider's defaults fill host, port and transport; its agent identifier is explained.
    await page.getByRole("button", { name: "New destination" }).click();
    await form.getByLabel("Kind", { exact: true }).selectOption("voice_ai");
    await form.getByLabel("Provider", { exact: true }).selectOption({ label: elevenlabs.name });
    expect(await form.getByLabel("Host", { exact: true }).inputValue()).toBe(elevenlabs.default_host);
    expect(await form.getByLabel("Port", { exact: true }).inputValue()).toBe(String(elevenlabs.default_port));
    expect(await form.getByLabel("Transport", { exact: true }).inputValue()).toBe(elevenlabs.default_transport);
    expect(await fieldOf(form, "Agent identifier").innerText()).toContain(elevenlabs.agent_id_label);
    expect(await form.getByTestId("provider-facts").innerText()).toContain("digest challenge");
    await form.getByLabel("Agent identifier", { exact: true }).fill("+15550100200");
    await form.getByLabel("Label", { exact: true }).fill("Voice agent");
    await form.getByRole("button", { name: "Add destination" }).click();
    const agent = card(page, "Voice agent");
    await agent.waitFor();
    expect(await agent.locator('[data-secret="credential"]').innerText()).toContain("needed: the provider challenges our INVITE");
    const voice = (await owner.api("/customer/destinations")).find((d: any) => d.label === "Voice agent");
    expect(voice).toMatchObject({
      kind: "voice_ai",
      provider: "elevenlabs",
      agent_id: "+15550100200",
      host: elevenlabs.default_host,
      port: elevenlabs.default_port,
      transport: elevenlabs.default_transport,
      needs_credential: true,
      needs_webhook: true,
    });
    // The URL is built on the host the request came to (localhost for the browser, 127.0.0.1 here): the same token.
    const shownUrl = await agent.locator('[data-secret="webhook_url"] code').innerText();
    expect(new URL(shownUrl).pathname).toBe(new URL(voice.webhook_url).pathname);
    // The link an agent's add_destination answer can give a person: the destination's card, in view.
    await open(page, `/app/trunk?destination=${created.id}`);
    await onTrunk(page);
    const linked = page.locator(`article#destination-${created.id}.trunk-linked`);
    await linked.waitFor();
    expect(await linked.isVisible()).toBe(true);
    await checkA11y(page, "trunk (destinations)");
  });

  it("a routing rule changes where sipp's next call goes, as the page's match box says", async (test) => {
    const owner = await withTrunk(await newOwner());
    const first = owner.trunk.destination;
    const secondPort = await freeUdpPort();

    const { page } = await browserFor(test);
    await signIn(page, owner);
    await open(page, "/app/trunk");
    await onTrunk(page);
    await page.getByRole("button", { name: "New destination" }).click();
    const form = page.getByRole("form", { name: "New destination" });
    await form.getByLabel("Host", { exact: true }).fill("127.0.0.1");
    await form.getByLabel("Port", { exact: true }).fill(String(secondPort));
    await form.getByLabel("Label", { exact: true }).fill("Second SBC");
    await form.getByRole("button", { name: "Add destination" }).click();
    await card(page, "Second SBC").waitFor();
    const second = (await owner.api("/customer/destinations")).find((d: any) => d.label === "Second SBC");

    const rules = page.getByRole("form", { name: "New routing rule" });
    await rules.getByLabel("Destination", { exact: true }).locator("option", { hasText: "Second SBC" }).waitFor({ state: "attached" });
    await rules.getByLabel("Prefix", { exact: true }).fill("1415555");
    await rules.getByLabel("Destination", { exact: true }).selectOption({ label: "Second SBC" });
    await rules.getByLabel("Priority", { exact: true }).fill("100");
    await rules.getByLabel("Label", { exact: true }).fill("Bay Area via SBC 2");
    await rules.getByRole("button", { name: "Add rule" }).click();
    const rule = await until(
      "the rule in GET /customer/routing-rules",
      async () => ((await owner.api("/customer/routing-rules")) as any[]).find((r) => r.destination_id === second.id),
      10_000,
    );
    expect(rule).toMatchObject({ prefix: "1415555", priority: 100, enabled: true, label: "Bay Area via SBC 2" });
    // A shorter prefix to the first destination, and a disabled one that would otherwise win.
    const wider = await owner.api("/customer/routing-rules", {
      body: { prefix: "+14155", destination_id: first.id, priority: 50, label: "Wider" },
    });
    const paused = await owner.api("/customer/routing-rules", {
      body: { prefix: "1415555", destination_id: first.id, priority: 10, enabled: false, label: "Paused" },
    });
    await page.reload();
    await onTrunk(page);

    const box = page.getByRole("search", { name: "Which destination would take this number?" });
    await box.getByLabel("Dialed number", { exact: true }).fill("+1 415 555 0123");
    const answer = page.getByTestId("route-answer");
    const winner = answer.locator(".trunk-winner");
    await winner.filter({ hasText: "Second SBC takes the call (rule 1415555)" }).waitFor();
    expect(await winner.getAttribute("data-destination-id")).toBe(second.id);
    expect(await answer.locator("ol li").evaluateAll((items) => items.map((li) => li.getAttribute("data-rule-id")))).toEqual([
      rule.id,
      wider.id,
      "default",
    ]);
    expect(await answer.innerText()).toContain("1415555 (disabled)");
    expect(new URL(page.url()).searchParams.get("number")).toBe("+1 415 555 0123");
    // The table lists the rules in the order they are tried, as the API does.
    const order = await page.locator("tr[data-rule-id]").evaluateAll((rows) => rows.map((r) => r.getAttribute("data-rule-id")));
    expect(order).toEqual(((await owner.api("/customer/routing-rules")) as any[]).map((r) => r.id));
    expect(order.indexOf(rule.id)).toBeLessThan(order.indexOf(wider.id));
    expect(order).toContain(paused.id);

    // sipp's next call to that number reaches the second destination (its own sipp UAS).
    const routed = await placeCall({ ...owner, trunk: { ...owner.trunk, port: secondPort } }, "answered", {
      dialed: "14155550123",
      seconds: 2,
    });
    expect(routed).toMatchObject({ routed_destination_id: second.id, route_prefix: "1415555", dest_port: secondPort });
    await checkA11y(page, "trunk");
    await screenshots(page, "trunk");

    // The rule disabled on the page: the box and the next call go by the wider rule to the first destination.
    const ruleRow = page.locator(`tr[data-rule-id="${rule.id}"]`);
    await ruleRow.getByRole("button", { name: "Disable" }).click();
    await ruleRow.getByText("Disabled", { exact: true }).waitFor();
    await winner.filter({ hasText: "sipp destination takes the call (rule +14155)" }).waitFor();
    expect(await winner.getAttribute("data-destination-id")).toBe(first.id);
    const back = await placeCall(owner, "answered", { dialed: "14155550123", seconds: 2 });
    expect(back).toMatchObject({ routed_destination_id: first.id, route_prefix: "+14155", dest_port: owner.trunk.port });
  });
});
