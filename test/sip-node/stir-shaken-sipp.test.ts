// STIR/SHAKEN through the node (issue 32): sipp calls carrying Identity headers signed under a
// test STI-CA, whose x5u a local HTTP server serves, reach the node with a stand-in Worker
// (fake-worker.ts): the admission request carries what the node read (verified, tampered, stale,
// a private x5u, an upstream verstat), and a refusal's answer names its reason (Reason, RFC 3326).
import { randomUUID } from "node:crypto";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import type { AdmitResponse } from "../../schema/node-api.ts";
import { loadSipNodeConfig } from "../../sip-node/config.ts";
import { startSipNode, type SipNode } from "../../sip-node/node.ts";
import { startFakeWorker, type FakeWorker } from "./fake-worker.ts";
import { freeSipPort, freeUdpPort, uac, uas, type Stack } from "./harness.ts";
import { identityHeader, makePki, passport, startX5uServer } from "./stir-shaken-pki.ts";

const CALLER = "127.0.0.71";
const ACCOUNT = randomUUID();
const ANI = "+14155550100";

let pki: ReturnType<typeof makePki>;
let x5uServer: Awaited<ReturnType<typeof startX5uServer>>;
let x5u: string;
let worker: FakeWorker | null = null;
let node: SipNode | null = null;

beforeAll(async () => {
  pki = makePki();
  x5uServer = await startX5uServer();
  x5u = x5uServer.serve("/sp/shaken-1234.pem", pki.signer.cert + pki.intermediate.cert);
});

afterAll(() => x5uServer?.close());

afterEach(async () => {
  await node?.stop();
  await worker?.close();
  node = worker = null;
});

/** The node trusting the test STI-CA, with a Worker admitting to `destinationPort` unless `admit` answers otherwise. */
async function start(admit?: () => AdmitResponse) {
  const destinationPort = await freeUdpPort();
  worker = await startFakeWorker({ sources: { [CALLER]: ACCOUNT }, destinationPort, ...(admit ? { admit } : {}) });
  const base = 56_000 + (process.pid % 100) * 40;
  const config = loadSipNodeConfig({
    NODE_TOKEN: "t".repeat(32),
    WORKER_URL: worker.url,
    SIP_BIND: "127.0.0.1",
    SIP_PORT: String(await freeSipPort()),
    NODE_ID: "stir-node",
    MEDIA_SPOOL_DIR: mkdtempSync(join(tmpdir(), "stir-shaken-")),
    RTP_PORT_MIN: String(base),
    RTP_PORT_MAX: String(base + 39),
    STIR_TRUST_ANCHORS_FILE: pki.root.certFile,
  });
  node = await startSipNode(config, { whitelistPollMs: 60_000, monitorIntervalMs: 60_000 });
  return { destinationPort, stack: { node } as Stack };
}

const REFUSED = "screening:identity_failed";
const refuse = (): AdmitResponse => ({ decision: "reject", sip_code: 603, reason: REFUSED, call_id: null });

/** One refused sipp call carrying `identity`, From's user part `ani`: the Reason header is checked by the scenario. */
async function refusedCall(stack: Stack, identity: string, ani = ANI) {
  const result = await uac(stack, CALLER, "uac-identity-rejected.xml", "14155550123", {
    IDENTITY: identity,
    ANI: ani,
    CODE: "603",
    REASON: REFUSED,
  });
  expect(result.code, result.output).toBe(0);
  return worker!.admissions.at(-1)!;
}

describe("Identity headers through the node", () => {
  it("attestation A signed by a trusted certificate: the admission says verified with the PASSporT's claims, and the call goes through", async () => {
    const { destinationPort, stack } = await start();
    const callee = uas("uas.xml", destinationPort);
    await callee.listening;
    const token = await passport(pki.signer.key, x5u, { origid: "4437c7eb-8f92-4b2a-8e34-5a4b1f3c9d10" });
    const caller = await uac(stack, CALLER, "uac-identity.xml", "14155550123", { IDENTITY: identityHeader(token, x5u), ANI });
    expect(caller.code, caller.output).toBe(0);
    expect((await callee).code).toBe(0);
    expect(worker!.admissions[0]).toMatchObject({
      ani: ANI,
      identity: {
        status: "verified",
        reason: null,
        attestation: "A",
        orig_tn: "14155550100",
        dest_tn: ["14155550123"],
        origid: "4437c7eb-8f92-4b2a-8e34-5a4b1f3c9d10",
        x5u,
        verstat: null,
      },
    });
  });

  it("tampered, stale, a private x5u: each call's admission names the failure; every refusal carries Reason with the Worker's reason", async () => {
    const { stack } = await start(refuse);
    const signed = await passport(pki.signer.key, x5u, { attest: "B" });
    const [head, payload, signature] = signed.split(".") as [string, string, string];
    const claims = JSON.parse(Buffer.from(payload, "base64url").toString());
    const tampered = `${head}.${Buffer.from(JSON.stringify({ ...claims, attest: "A" })).toString("base64url")}.${signature}`;
    expect((await refusedCall(stack, identityHeader(tampered, x5u))).identity).toMatchObject({
      status: "failed",
      reason: "bad_signature",
      attestation: "A",
    });

    const stale = await passport(pki.signer.key, x5u, { iat: Math.floor(Date.now() / 1000) - 600 });
    expect((await refusedCall(stack, identityHeader(stale, x5u))).identity).toMatchObject({ status: "failed", reason: "stale_iat" });

    const hits = x5uServer.hits.length;
    const privateUrl = "http://10.0.0.1/sp/shaken.pem";
    const hidden = await passport(pki.signer.key, privateUrl);
    expect((await refusedCall(stack, identityHeader(hidden, privateUrl))).identity).toMatchObject({
      status: "failed",
      reason: "x5u_refused",
      x5u: privateUrl,
    });
    expect(x5uServer.hits.length).toBe(hits);
  });

  it("verstat=TN-Validation-Failed on From: the admission carries it, and the caller ID without it", async () => {
    const { stack } = await start(refuse);
    const token = await passport(pki.signer.key, x5u);
    const admission = await refusedCall(stack, identityHeader(token, x5u), `${ANI};verstat=TN-Validation-Failed`);
    expect(admission.ani).toBe(ANI);
    expect(admission.identity).toMatchObject({ status: "verified", verstat: "TN-Validation-Failed" });
  });
});
