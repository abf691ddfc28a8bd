// The outbound-address guard (issue 20, finding 3): every spelling of a non-public address, and
// names with a trailing dot, are refused when a webhook or alert channel URL is saved and again at
// every delivery, whether the URL holds the address itself or a name that resolves to it.
import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { encryptSecret } from "../../../worker/lib/secrets.ts";
import { testAlertChannel } from "../../../worker/services/alerts/channels.ts";
import { checkUrlForm } from "../../../worker/services/outbound-guard.ts";
import { testWebhook } from "../../../worker/services/webhooks/account-webhook.ts";
import { deliveryServices } from "../fixtures/delivery.ts";
import { createAccount, principalOf } from "../fixtures/factory.ts";
import { bodyOf, expectStatus, issuesOf } from "../fixtures/client.ts";

const newSecret = () => `whsec_${btoa(String.fromCharCode(...crypto.getRandomValues(new Uint8Array(24))))}`;

/** Loopback, link-local (cloud metadata) and site-local, each in a spelling the guard let through. */
const DISGUISED = [
  "https://[::7f00:1]/hook", // IPv4-compatible 127.0.0.1
  "https://[::a9fe:a9fe]/hook", // IPv4-compatible 169.254.169.254
  "https://[::ffff:7f00:1]/hook", // IPv4-mapped 127.0.0.1, hex
  "https://[0:0:0:0:0:ffff:127.0.0.1]/hook", // IPv4-mapped, uncompressed and dotted
  "https://[::FFFF:A9FE:A9FE]/hook", // IPv4-mapped, upper case
  "https://[::ffff:0:a9fe:a9fe]/hook", // SIIT-translated 169.254.169.254
  "https://[fec0::1]/hook", // site-local
  "https://localhost./hook",
  "https://LOCALHOST../hook",
  "https://metadata.google.internal./computeMetadata/v1",
];

/** What resolvers may answer for a name: the same addresses as a DNS answer would write them. */
const DISGUISED_ANSWERS = ["::7f00:1", "::a9fe:a9fe", "::ffff:127.0.0.1", "0:0:0:0:0:ffff:a9fe:a9fe", "fec0::1", "FEC0:0:0:0:0:0:0:1"];

describe("the outbound guard's form check", () => {
  it("refuses every disguised non-public address and trailing-dot name, production and local alike", () => {
    for (const url of DISGUISED) {
      expect(checkUrlForm(url, false), url).toEqual({ ok: false, error: "url_private_address" });
    }
    // Locally (OUTBOUND_ALLOW_LOOPBACK) loopback is reachable, but only loopback itself.
    expect(checkUrlForm("http://localhost./hook", true).ok).toBe(true);
    expect(checkUrlForm("http://[::ffff:7f00:1]:9000/hook", true).ok).toBe(true);
    for (const url of [
      "https://[::7f00:1]/hook",
      "https://[::a9fe:a9fe]/hook",
      "https://[fec0::1]/hook",
      "https://metadata.google.internal./",
    ]) {
      expect(checkUrlForm(url, true), url).toEqual({ ok: false, error: "url_private_address" });
    }
    // Public addresses in those spellings still pass.
    for (const url of ["https://[::ffff:5db8:d70e]/hook", "https://[2606:4700::6810:84e5]/hook", "https://hooks.carrier.example./hook"]) {
      expect(checkUrlForm(url, false).ok, url).toBe(true);
    }
  });
});

describe("webhook URLs", () => {
  it("are refused at save time (422 naming url) in every disguise", async () => {
    const owner = await createAccount();
    for (const url of DISGUISED) {
      const res = await owner.client.put("/api/customer/webhook", { url, secret: newSecret() });
      expectStatus(res, 422, url);
      expect(issuesOf(res.body)[0]?.loc, url).toEqual(["body", "url"]);
    }
    expect(bodyOf(await owner.client.get("/api/customer/webhook"), 200).url).toBeNull();
  });

  it("are refused at delivery: a URL stored before the check, and a name resolving to a disguised address", async () => {
    const owner = await createAccount();
    expect((await owner.client.put("/api/customer/webhook", { url: "https://hooks.carrier.example/x", secret: newSecret() })).status).toBe(
      200,
    );
    const { services, outbound } = deliveryServices();
    const principal = await principalOf(owner);
    await env.DB.prepare("UPDATE customers SET webhook_url = ? WHERE id = ?").bind("https://[::7f00:1]/hook", owner.account.id).run();
    expect(await testWebhook(services, principal)).toMatchObject({ delivered: false, error: "url_private_address" });
    await env.DB.prepare("UPDATE customers SET webhook_url = ? WHERE id = ?")
      .bind("https://hooks.carrier.example/x", owner.account.id)
      .run();
    for (const address of DISGUISED_ANSWERS) {
      outbound.addresses.set("hooks.carrier.example", [address]);
      expect(await testWebhook(services, principal), address).toMatchObject({ delivered: false, error: "url_private_address" });
    }
    expect(outbound.posts).toEqual([]);
    outbound.addresses.set("hooks.carrier.example", ["2606:4700::6810:84e5"]);
    expect(await testWebhook(services, principal)).toMatchObject({ delivered: true });
  });
});

describe("alert channel URLs", () => {
  it("are refused at save time (422 naming url), created or changed", async () => {
    const owner = await createAccount();
    for (const url of DISGUISED) {
      const res = await owner.client.post("/api/customer/alert-channels", { kind: "webhook", url });
      expectStatus(res, 422, url);
      expect(issuesOf(res.body)[0]?.loc, url).toEqual(["body", "url"]);
    }
    const channel = await owner.client.post("/api/customer/alert-channels", { kind: "webhook", url: "https://hooks.carrier.example/a" });
    expectStatus(channel, 201);
    const changed = await owner.client.patch(`/api/customer/alert-channels/${channel.body.id}`, { url: "https://[::7f00:1]/hook" });
    expectStatus(changed, 422);
    expect(issuesOf(changed.body)[0]?.loc).toEqual(["body", "url"]);
  });

  it("are refused at every post: a URL stored before the check, and a name resolving to a disguised address", async () => {
    const owner = await createAccount();
    const created = await owner.client.post("/api/customer/alert-channels", { kind: "webhook", url: "https://hooks.carrier.example/a" });
    expectStatus(created, 201);
    const id = created.body.id as string;
    const { services, outbound } = deliveryServices();
    const principal = await principalOf(owner);
    const sealed = await encryptSecret(env.ENCRYPTION_KEY as string, "https://[::7f00:1]/hook", `alert_channel:${id}:url`);
    await env.DB.prepare("UPDATE alert_channels SET secret_enc = ? WHERE id = ?").bind(sealed, id).run();
    expect(await testAlertChannel(services, principal, id)).toMatchObject({ sent: false, error: "url_private_address" });
    const named = await encryptSecret(env.ENCRYPTION_KEY as string, "https://hooks.carrier.example/a", `alert_channel:${id}:url`);
    await env.DB.prepare("UPDATE alert_channels SET secret_enc = ? WHERE id = ?").bind(named, id).run();
    for (const address of DISGUISED_ANSWERS) {
      outbound.addresses.set("hooks.carrier.example", ["93.184.215.14", address]);
      expect(await testAlertChannel(services, principal, id), address).toMatchObject({ sent: false, error: "url_private_address" });
    }
    expect(outbound.posts).toEqual([]);
  });
});
