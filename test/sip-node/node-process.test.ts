// The node as its own process (sip-node/main.ts) against a stand-in Worker over HTTP: SIGTERM
// drains it and it exits 0, and a node killed (SIGKILL) before the Worker took a call's end sends
// that end first when started again.
import { randomUUID } from "node:crypto";
import { existsSync, mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { startFakeWorker, type FakeWorker } from "./fake-worker.ts";
import { freeUdpPort, sendRaw, uac, uas, until, type Stack } from "./harness.ts";
import { startNodeProcess, type NodeProcess } from "./node-process.ts";

const CALLER = "127.0.0.71";
const ACCOUNT = randomUUID();

let worker: FakeWorker | null = null;
const nodes: NodeProcess[] = [];

afterEach(async () => {
  for (const node of nodes.splice(0)) if (node.child.exitCode === null && node.child.signalCode === null) await node.kill("SIGKILL");
  await worker?.close();
  worker = null;
});

async function fakeWorker() {
  const destinationPort = await freeUdpPort();
  worker = await startFakeWorker({ sources: { [CALLER]: ACCOUNT }, destinationPort });
  return { w: worker, destinationPort, stack: { api: worker.url, nodeToken: "t".repeat(32) } as Stack };
}

async function nodeProcess(stack: Stack, env: Record<string, string>) {
  const node = await startNodeProcess(stack, { NODE_HEARTBEAT_SECONDS: "0.5", ...env });
  nodes.push(node);
  return node;
}

/** startStack's shape for harness.uac/sendRaw, which only need the node's port. */
const peerOf = (node: NodeProcess) => ({ node: { port: node.port } }) as unknown as Stack;

const invite = (port: number) =>
  [
    `INVITE sip:14155550123@127.0.0.1:${port} SIP/2.0`,
    `Via: SIP/2.0/UDP ${CALLER}:5999;branch=z9hG4bK-${randomUUID()}`,
    "Max-Forwards: 70",
    `From: <sip:14155550100@${CALLER}>;tag=sigterm-test`,
    `To: <sip:14155550123@127.0.0.1:${port}>`,
    `Call-ID: ${randomUUID()}`,
    "CSeq: 1 INVITE",
    "Content-Length: 0",
    "",
    "",
  ].join("\r\n");

describe("the node process", () => {
  it("drains on SIGTERM: 503 with Retry-After to new calls, the call up ended (node_drain) and reported, exit 0", async () => {
    const { w, destinationPort, stack } = await fakeWorker();
    const node = await nodeProcess(stack, { NODE_DRAIN_SECONDS: "1", MEDIA_SPOOL_DIR: mkdtempSync(join(tmpdir(), "node-proc-")) });
    const callee = uas("uas-hungup.xml", destinationPort);
    await callee.listening;
    const caller = uac(peerOf(node), CALLER, "uac-callee-bye.xml");
    await w.until(() => w.events().some((e) => e.event.type === "answered"));
    node.child.kill("SIGTERM");
    await until("the node to drain", () => /draining: no new calls/.test(node.output()), 5_000);
    const replies = await sendRaw(peerOf(node), CALLER, invite(node.port), 1_000, (received) =>
      received.some((r) => r.startsWith("SIP/2.0 5")),
    );
    expect(replies.find((r) => r.startsWith("SIP/2.0 5"))).toMatch(/^SIP\/2\.0 503 [^]*\r\nRetry-After: 1\r\n/i);
    expect(await node.exited).toEqual({ code: 0, signal: null });
    const end = w.events().find((e) => e.event.type === "ended");
    expect(end?.event).toMatchObject({ end_reason: "node_drain", hangup_by: "platform" });
    expect((await caller).code).toBe(0);
    expect((await callee).code).toBe(0);
  });

  it("killed before the Worker took a call's end, sends that end first when started again, with its new boot's first heartbeat", async () => {
    const { w, destinationPort, stack } = await fakeWorker();
    const spool = mkdtempSync(join(tmpdir(), "node-proc-"));
    const first = await nodeProcess(stack, { MEDIA_SPOOL_DIR: spool });
    const callee = uas("uas.xml", destinationPort);
    await callee.listening;
    await w.until(() => w.reports.length > 0); // the first heartbeat: this boot's id
    const firstBoot = w.reports[0]!.boot_id;
    w.failReports(503);
    const caller = await uac(peerOf(first), CALLER, "uac.xml");
    expect(caller.code, caller.output).toBe(0);
    expect((await callee).code).toBe(0);
    const callId = w.tickets[0]!.call_id;
    // The end is in the journal before it is sent; the Worker has not taken it.
    const journal = () =>
      existsSync(join(spool, "call-reports.journal")) ? readFileSync(join(spool, "call-reports.journal"), "utf8") : null;
    await w.until(() => journal()?.includes(callId));
    expect(w.events()).toEqual([]);
    expect(await first.kill("SIGKILL")).toEqual({ code: null, signal: "SIGKILL" });

    w.failReports(null);
    const second = await nodeProcess(stack, { MEDIA_SPOOL_DIR: spool });
    const replay = await w.until(() => w.reports.find((r) => r.events.length > 0));
    expect(replay.boot_id).not.toBe(firstBoot);
    expect(replay.live).toEqual([]);
    expect(replay.events).toEqual([
      expect.objectContaining({
        call_id: callId,
        customer_id: ACCOUNT,
        event: expect.objectContaining({ type: "ended", hangup_by: "caller" }),
      }),
    ]);
    // The journal is empty once the end was taken.
    await w.until(() => journal() === "");
    expect(w.events().filter((e) => e.call_id === callId && e.event.type === "ended")).toHaveLength(1);
    await second.kill("SIGTERM");
  });
});
