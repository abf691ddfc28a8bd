// STIR/SHAKEN end to end (issue 32): sipp calls with Identity headers signed under a test STI-CA
// (the x5u served by a local HTTP server) through the node and the Worker under wrangler dev; the
// call's record shows what the node found: attestation A verified, or failed with its reason.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { freeUdpPort, openAccount, startStack, uac, uas, until, type Stack, type TestAccount } from "./harness.ts";
import { identityHeader, makePki, passport, startX5uServer } from "./stir-shaken-pki.ts";

let stack: Stack;
let pki: ReturnType<typeof makePki>;
let x5uServer: Awaited<ReturnType<typeof startX5uServer>>;
let x5u: string;

beforeAll(async () => {
  pki = makePki();
  x5uServer = await startX5uServer();
  x5u = x5uServer.serve("/sp/shaken-1234.pem", pki.signer.cert + pki.intermediate.cert);
  stack = await startStack({ STIR_TRUST_ANCHORS_FILE: pki.root.certFile });
}, 120_000);

afterAll(async () => {
  await stack?.stop();
  await x5uServer?.close();
});

/** The calls already seen: each test call is the account's newest call not among them. */
const seen = new Set<string>();

/** One answered call from the account carrying `identity`; the call as GET /api/calls/{id} shows it once ended. */
async function callWith(account: TestAccount, port: number, identity: string): Promise<any> {
  const callee = uas("uas.xml", port);
  await callee.listening;
  const caller = await uac(stack, account.src, "uac-identity.xml", "14155550123", { IDENTITY: identity, ANI: "+14155550100" });
  expect(caller.code, caller.output).toBe(0);
  expect((await callee).code).toBe(0);
  const ended = await until(
    "the call's end at the Worker",
    async () => {
      const call = (await account.call("/api/calls")).items?.[0];
      return call && !seen.has(call.id) && call.status !== "ringing" && call.status !== "active" && call;
    },
    10_000,
    100,
  );
  seen.add(ended.id);
  return account.call(`/api/calls/${ended.id}`);
}

describe("the call shows its caller ID's attestation", () => {
  it("attestation A verified; a tampered PASSporT failed bad_signature (flagged, not refused, by default)", async () => {
    const port = await freeUdpPort();
    const account = await openAccount(stack, port);
    const verified = await callWith(account, port, identityHeader(await passport(pki.signer.key, x5u), x5u));
    expect(verified).toMatchObject({ attestation: "A", identity_status: "verified", identity_reason: null });

    const signed = await passport(pki.signer.key, x5u, { attest: "C" });
    const [head, payload, signature] = signed.split(".") as [string, string, string];
    const claims = JSON.parse(Buffer.from(payload, "base64url").toString());
    const tampered = `${head}.${Buffer.from(JSON.stringify({ ...claims, attest: "A" })).toString("base64url")}.${signature}`;
    const failed = await callWith(account, port, identityHeader(tampered, x5u));
    expect(failed.id).not.toBe(verified.id);
    expect(failed).toMatchObject({ identity_status: "failed", identity_reason: "bad_signature" });
  });
});
