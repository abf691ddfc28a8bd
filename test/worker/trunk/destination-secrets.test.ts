// A destination's secrets: the credential, secret and key switches, the inbound webhook URL of a
// voice agent (stable until rotated), and secrets written only, stored as ciphertexts bound to the row.
import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { sha256Hex } from "../../../worker/lib/crypto.ts";
import { decryptSecret } from "../../../worker/lib/secrets.ts";
import { bodyOf, expectStatus, issuesOf, ORIGIN } from "../fixtures/client.ts";
import type { Schemas } from "../fixtures/api-reply.ts";
import { addDestination, destinationRowOf, listDestinations, VOICE_WEBHOOK_URL } from "../fixtures/destination.ts";
import { createAccount } from "../fixtures/factory.ts";

const PATH = "/api/customer/destinations";
const tokenOf = (url: string | null | undefined) => VOICE_WEBHOOK_URL.exec(url ?? "")![1]!;

/** The locations named by a 422 body, e.g. ["body.port"]. */
const locs = (body: Schemas["Error"]) => issuesOf(body).map((i) => i.loc.join("."));

describe("credential, secret and key switches", () => {
  it("reports has_* and needs_* and clears each secret with its switch", async () => {
    const owner = await createAccount();
    const bare = await addDestination(owner, { kind: "voice_ai", provider: "elevenlabs" });
    expect(bare).toMatchObject({
      has_credential: false,
      needs_credential: true,
      has_webhook_secret: false,
      needs_webhook: true,
      has_provider_key: false,
    });

    const armed = await owner.client.patch(`${PATH}/${bare.id}`, {
      auth_username: "agent-user",
      auth_password: `pw-${crypto.randomUUID()}`,
      auth_realm: "sip.rtc.elevenlabs.io",
      webhook_secret: `wh-${crypto.randomUUID()}`,
      provider_api_key: `sk-${crypto.randomUUID()}`,
    });
    expect(armed.body).toMatchObject({
      has_credential: true,
      needs_credential: false,
      has_webhook_secret: true,
      needs_webhook: false,
      has_provider_key: true,
    });

    // null leaves a write-only value as it is.
    const untouched = await owner.client.patch(`${PATH}/${bare.id}`, { auth_password: null, webhook_secret: null, provider_api_key: null });
    expect(untouched.body).toEqual(armed.body);

    const noCredential = await owner.client.patch(`${PATH}/${bare.id}`, { clear_credential: true });
    expect(noCredential.body).toMatchObject({
      has_credential: false,
      needs_credential: true,
      has_webhook_secret: true,
      has_provider_key: true,
    });
    expect(await destinationRowOf(bare.id)).toMatchObject({ auth_username: null, auth_password_enc: null, auth_realm: null });

    const noSecret = await owner.client.patch(`${PATH}/${bare.id}`, { clear_webhook_secret: true });
    expect(noSecret.body).toMatchObject({ has_webhook_secret: false, needs_webhook: true, has_provider_key: true });

    const noKey = await owner.client.patch(`${PATH}/${bare.id}`, { clear_provider_key: true });
    expect(noKey.body).toMatchObject({ has_provider_key: false, has_credential: false, has_webhook_secret: false });
    expect(await destinationRowOf(bare.id)).toMatchObject({ webhook_secret_enc: null, provider_api_key_enc: null });
  });

  it("refuses to set and clear the same secret in one request", async () => {
    const owner = await createAccount();
    const made = await addDestination(owner, { auth_password: "first-password" });
    for (const [body, field] of [
      [{ clear_credential: true, auth_password: "other" }, "body.clear_credential"],
      [{ clear_credential: true, auth_username: "someone" }, "body.clear_credential"],
      [{ clear_webhook_secret: true, webhook_secret: "s" }, "body.clear_webhook_secret"],
      [{ clear_provider_key: true, provider_api_key: "k" }, "body.clear_provider_key"],
    ] as const) {
      const res = await owner.client.patch(`${PATH}/${made.id}`, body);
      expectStatus(res, 422, field);
      expect(locs(res.body)).toEqual([field]);
    }
    expect((await listDestinations(owner))[0]!.has_credential).toBe(true);
  });

  it("a SIP destination never needs a credential or a webhook, but may hold a credential", async () => {
    const owner = await createAccount();
    const made = await addDestination(owner, { auth_username: "trunk", auth_password: "digest-secret-1" });
    expect(made).toMatchObject({ has_credential: true, needs_credential: false, needs_webhook: false, webhook_url: null });
  });
});

describe("the inbound webhook URL", () => {
  it("stays the same across reads and changes only on rotation", async () => {
    const owner = await createAccount();
    const made = await addDestination(owner, { kind: "voice_ai", provider: "openai_realtime", agent_id: "proj_abc" });
    const url = made.webhook_url ?? "";
    expect(url).toMatch(VOICE_WEBHOOK_URL);
    expect((await listDestinations(owner))[0]!.webhook_url).toBe(url);
    expect(bodyOf(await owner.client.patch(`${PATH}/${made.id}`, { label: "renamed" }), 200).webhook_url).toBe(url);
    expect((await listDestinations(owner))[0]!.webhook_url).toBe(url);

    let row = await destinationRowOf(made.id);
    expect(row!.webhook_token_hash).toBe(await sha256Hex(tokenOf(url)));
    expect(row!.webhook_token_enc).not.toContain(tokenOf(url));
    expect(await decryptSecret(env.ENCRYPTION_KEY, row!.webhook_token_enc, `destination:${made.id}:webhook_token`)).toBe(tokenOf(url));

    const rotated = await owner.client.patch(`${PATH}/${made.id}`, { rotate_webhook_token: true });
    expectStatus(rotated, 200);
    expect(rotated.body.webhook_url).toMatch(VOICE_WEBHOOK_URL);
    expect(rotated.body.webhook_url).not.toBe(url);
    expect((await listDestinations(owner))[0]!.webhook_url).toBe(rotated.body.webhook_url);
    row = await destinationRowOf(made.id);
    expect(row!.webhook_token_hash).toBe(await sha256Hex(tokenOf(rotated.body.webhook_url)));
    const stale = await env.DB.prepare("SELECT count(*) AS n FROM destinations WHERE webhook_token_hash = ?")
      .bind(await sha256Hex(tokenOf(url)))
      .first<{ n: number }>();
    expect(stale!.n).toBe(0);
  });

  it("is built on the origin the request came to", async () => {
    const owner = await createAccount();
    const made = await addDestination(owner, { kind: "voice_ai", provider: "vapi" });
    expect(made.webhook_url?.startsWith(`${ORIGIN}/api/webhooks/voice/`)).toBe(true);
  });
});

describe("write-only secrets", () => {
  it("never returns them and keeps only ciphertexts bound to the row", async () => {
    const owner = await createAccount();
    const password = `digest-${crypto.randomUUID()}`;
    const webhookSecret = `whsec_${crypto.randomUUID()}`;
    const apiKey = `sk-live-${crypto.randomUUID()}`;
    const username = `user-${crypto.randomUUID()}`;
    const realm = `realm-${crypto.randomUUID()}.example`;
    const replies: unknown[] = [];
    const keep = <T extends { body: unknown }>(res: T): T => {
      replies.push(res.body);
      return res;
    };

    const created = keep(
      await owner.client.post(PATH, {
        kind: "voice_ai",
        provider: "elevenlabs",
        auth_username: username,
        auth_password: password,
        auth_realm: realm,
        webhook_secret: webhookSecret,
        provider_api_key: apiKey,
      }),
    );
    expectStatus(created, 201);
    const id = created.body.id;
    expect(created.body).toMatchObject({
      has_credential: true,
      has_webhook_secret: true,
      has_provider_key: true,
      needs_credential: false,
      needs_webhook: false,
    });
    keep(await owner.client.get(PATH));
    keep(await owner.client.patch(`${PATH}/${id}`, { label: "renamed" }));
    keep(await owner.client.patch(`${PATH}/${id}`, { rotate_webhook_token: true }));
    keep(await owner.client.get("/api/customer/voice-providers"));
    // Refusals carry no values either.
    keep(await owner.client.post(PATH, { host: "sbc.carrier.test", port: 0, auth_password: password, webhook_secret: webhookSecret }));
    keep(await owner.client.patch(`${PATH}/${id}`, { clear_webhook_secret: true, webhook_secret: webhookSecret }));
    keep(await owner.client.patch(`${PATH}/${id}`, { auth_password: password.repeat(20) }));
    // Another account learns nothing.
    keep(await (await createAccount()).client.patch(`${PATH}/${id}`, { auth_password: password }));

    const text = JSON.stringify(replies);
    for (const value of [password, webhookSecret, apiKey, username, realm]) expect(text).not.toContain(value);
    // Not even the names of the write-only fields appear in a destination (a 422 may name one as its loc).
    const destinationsSeen = replies.flat().filter((r): r is Record<string, unknown> => typeof r === "object" && r !== null && "host" in r);
    expect(destinationsSeen.length).toBeGreaterThanOrEqual(4);
    for (const d of destinationsSeen) {
      for (const field of ["auth_username", "auth_password", "auth_realm", "webhook_secret", "provider_api_key"]) {
        expect(d).not.toHaveProperty(field);
      }
    }

    const row = (await destinationRowOf(id))!;
    const sealed: [string, string, string][] = [
      ["auth_password_enc", "auth_password", password],
      ["webhook_secret_enc", "webhook_secret", webhookSecret],
      ["provider_api_key_enc", "provider_api_key", apiKey],
    ];
    expect(JSON.stringify(row)).not.toContain(password);
    expect(JSON.stringify(row)).not.toContain(webhookSecret);
    expect(JSON.stringify(row)).not.toContain(apiKey);
    for (const [column, field, plain] of sealed) {
      expect(row[column], column).toMatch(/^v1\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/);
      expect(await decryptSecret(env.ENCRYPTION_KEY, row[column], `destination:${id}:${field}`), column).toBe(plain);
      // Bound to its row and field: another context does not open it.
      expect(await decryptSecret(env.ENCRYPTION_KEY, row[column], `destination:${crypto.randomUUID()}:${field}`)).toBeNull();
      expect(await decryptSecret(env.ENCRYPTION_KEY, row[column], `destination:${id}:webhook_token`)).toBeNull();
    }
    expect(row).toMatchObject({ auth_username: username, auth_realm: realm });
  });
});
