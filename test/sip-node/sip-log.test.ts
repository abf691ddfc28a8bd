// Every message of a call through the node, both legs, written to the call's sip-log.jsonl in the
// spool as the call goes and uploaded after its end (sipp on both sides, the Worker under wrangler
// dev), read back through GET /api/calls/{id}/sip-log; and a log an earlier run left in the spool.
import { mkdtempSync, readdirSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { workerClient } from "../../sip-node/control/worker-client.ts";
import { MediaEngine } from "../../sip-node/media/engine.ts";
import {
  endedCall,
  freeUdpPort,
  openAccount,
  pause,
  startStack,
  syncLedger,
  uac,
  uas,
  until,
  type Stack,
  type TestAccount,
} from "./harness.ts";

let stack: Stack;

beforeAll(async () => {
  stack = await startStack();
}, 120_000);

afterAll(async () => {
  await stack?.stop();
});

/** The call's SIP log once the node's file has reached the Worker (its messages carry headers; the ladder's do not). */
async function uploadedLog(account: TestAccount, callId: string): Promise<any> {
  for (let i = 0; i < 100; i++) {
    const log = await account.call(`/api/calls/${callId}/sip-log`);
    if (log.messages?.[0]?.headers) return log;
    await pause(100);
  }
  throw new Error(`no sip-log.jsonl for ${callId}`);
}

/** The call's record once the ledger's queue has written it to D1 (within a second or two). */
async function recorded(account: TestAccount, callId?: string): Promise<any> {
  for (let i = 0; i < 50; i++) {
    const items = (await account.call("/api/calls")).items as any[];
    const call = callId ? items.find((c) => c.id === callId) : items[0];
    if (call) return call;
    await pause(100);
  }
  throw new Error(`call ${callId ?? ""} never reached GET /calls`);
}

/**
 * The log's messages as "<leg> <in|out> <method or status>", `callee` being the address the
 * destination answers at; a retransmission (the same text again) is left out.
 */
function ladder(log: any, callee: string, node: number): string[] {
  const seen = new Set<string>();
  const text: string[] = log.text
    .split(/^---- .*\n/m)
    .slice(1)
    .map((block: string) => block.trimEnd());
  return log.messages.flatMap((m: any, i: number) => {
    if (seen.has(text[i]!)) return [];
    seen.add(text[i]!);
    const peer = m.direction === "in" ? m.fromip : m.toip;
    const local = m.direction === "in" ? m.toip : m.fromip;
    expect(local).toBe(`127.0.0.1:${node}`);
    return [`${peer === callee ? "B" : "A"} ${m.direction} ${m.status ?? m.method}`];
  });
}

/** Each leg's messages in order (the legs interleave as the peers answer). */
const legOf = (lines: string[], leg: "A" | "B") => lines.filter((l) => l.startsWith(`${leg} `)).map((l) => l.slice(2));

describe("the call's sip-log.jsonl", () => {
  it("holds every message of both legs in order, uploaded after the end and served whole with a text ladder", async () => {
    const port = await freeUdpPort();
    const account = await openAccount(stack, port);
    const callee = uas("uas.xml", port);
    await callee.listening;
    const caller = await uac(stack, account.src, "uac.xml");
    expect(caller.code, caller.output).toBe(0);
    expect((await callee).code).toBe(0);
    const call = await endedCall(account);
    const log = await uploadedLog(account, call.id);
    expect(log).toMatchObject({ call_id: call.id, sip_call_id: call.sip_call_id });
    expect(ladder(log, `127.0.0.1:${port}`, stack.node.port)).toEqual([
      "A in INVITE",
      "A out 100 Trying",
      "B out INVITE",
      "B in 180 Ringing",
      "A out 180 Ringing",
      "B in 200 OK",
      "B out ACK",
      "A out 200 OK",
      "A in ACK",
      "A in BYE",
      "A out 200 OK",
      "B out BYE",
      "B in 200 OK",
    ]);
    const times = log.messages.map((m: any) => Date.parse(m.time_stamp));
    expect(times).toEqual([...times].sort((x, y) => x - y));
    // The ladder of the end event has fewer (no ACK from the caller, no 200 for its BYE): the file has them all.
    const inspect = await account.call(`/api/calls/${call.id}/inspect`);
    expect(inspect.ladder.length).toBeLessThan(log.messages.length);

    // The text is each message whole, as it crossed the wire: the SDP anchored at the relay on both sides.
    const blocks = log.text.split(/^---- /m).slice(1);
    expect(blocks).toHaveLength(log.messages.length);
    expect(blocks[0]).toMatch(new RegExp(`^\\S+ in ${account.src}:\\d+ -> 127\\.0\\.0\\.1:${stack.node.port}\\nINVITE sip:14155550123@`));
    expect(blocks[0]).toContain(`\nCall-ID: ${call.sip_call_id}\n`);
    expect(blocks[0]).toContain("\nm=audio ");
    expect(blocks[2]).toMatch(/^\S+ out 127\.0\.0\.1:\d+ -> 127\.0\.0\.1:\d+\nINVITE sip:14155550123@127\.0\.0\.1/);
    expect(blocks[2]).toContain("\nc=IN IP4 127.0.0.1\n");
    expect(log.messages[0].headers["Call-ID"]).toBe(call.sip_call_id);
    expect(readdirSync((stack.node.media as any).options.spoolDir).filter((f) => f.startsWith(call.id))).toEqual([]);
  }, 60_000);

  it("writes messages of a call over TCP as they were parsed", async () => {
    const port = await freeUdpPort();
    const account = await openAccount(stack, port, { transport: "tcp" });
    const callee = uas("uas.xml", port, true);
    await callee.listening;
    const caller = await uac(stack, account.src, "uac.xml", "14155550123", {}, true);
    expect(caller.code, caller.output).toBe(0);
    expect((await callee).code).toBe(0);
    const call = await endedCall(account);
    const log = await uploadedLog(account, call.id);
    const lines = ladder(log, `127.0.0.1:${port}`, stack.node.port);
    expect(legOf(lines, "A")).toEqual(["in INVITE", "out 100 Trying", "out 180 Ringing", "out 200 OK", "in ACK", "in BYE", "out 200 OK"]);
    expect(legOf(lines, "B")).toEqual(["out INVITE", "in 180 Ringing", "in 200 OK", "out ACK", "out BYE", "in 200 OK"]);
    expect(log.text).toContain("Via: SIP/2.0/TCP ");
  }, 60_000);

  it("keeps what the transaction layer sent and the digest answer as it went, never the destination's password", async () => {
    const port = await freeUdpPort();
    const account = await openAccount(stack, port, { auth_username: "trunk7", auth_password: "digest-pass-7", auth_realm: "sbc.test" });
    const callee = uas("uas-challenge-401.xml", port);
    await callee.listening;
    const caller = await uac(stack, account.src, "uac.xml");
    expect(caller.code, caller.output).toBe(0);
    expect((await callee).code).toBe(0);
    const call = await endedCall(account);
    const log = await uploadedLog(account, call.id);
    const lines = ladder(log, `127.0.0.1:${port}`, stack.node.port);
    // The ACK of the 401 is the transaction layer's own (RFC 3261 §17.1.1.3).
    expect(legOf(lines, "B")).toEqual([
      "out INVITE",
      "in 401 Unauthorized",
      "out ACK",
      "out INVITE",
      "in 200 OK",
      "out ACK",
      "out BYE",
      "in 200 OK",
    ]);
    expect(log.text).toMatch(/\nAuthorization: Digest username="trunk7", realm="[^"]+", nonce="[^"]+", uri="[^"]+", response="[0-9a-f]+"/);
    expect(log.text).not.toContain("digest-pass-7");
    expect(JSON.stringify(log)).not.toContain("digest-pass-7");
  }, 60_000);

  it("follows a cancelled call to its last ACK on both legs", async () => {
    const port = await freeUdpPort();
    const account = await openAccount(stack, port);
    const callee = uas("uas-ring.xml", port);
    await callee.listening;
    const caller = await uac(stack, account.src, "uac-cancel.xml");
    expect(caller.code, caller.output).toBe(0);
    expect((await callee).code).toBe(0);
    const call = await endedCall(account);
    const lines = ladder(await uploadedLog(account, call.id), `127.0.0.1:${port}`, stack.node.port);
    expect(legOf(lines, "A")).toEqual([
      "in INVITE",
      "out 100 Trying",
      "out 180 Ringing",
      "in CANCEL",
      "out 200 OK",
      "out 487 Request Terminated",
      "in ACK",
    ]);
    expect(legOf(lines, "B")).toEqual(["out INVITE", "in 180 Ringing", "out CANCEL", "in 200 OK", "in 487 Request Terminated", "out ACK"]);
  }, 60_000);

  it("is kept for a call the Worker refused and recorded", async () => {
    const port = await freeUdpPort();
    const account = await openAccount(stack, port);
    await stack.sql(
      "INSERT INTO ani_controls (id, customer_id, ani, action, created_at) " +
        `VALUES ('${crypto.randomUUID()}', '${account.id}', '14155550666', 'block', '${new Date().toISOString()}')`,
    );
    await syncLedger(account);
    const caller = await uac(stack, account.src, "uac-rejected.xml", "14155550123", { CODE: "603", ANI: "14155550666" });
    expect(caller.code, caller.output).toBe(0);
    const call = await recorded(account);
    expect(call).toMatchObject({ status: "rejected", sip_code: 603 });
    // sipp's ACK carries a branch of its own rather than the INVITE's (RFC 3261 §17.1.1.3), so it does not
    // stop our 603 from being sent again: the log keeps those too, left out here as retransmissions.
    const lines = ladder(await uploadedLog(account, call.id), `127.0.0.1:${port}`, stack.node.port);
    expect(lines).toEqual(["A in INVITE", "A out 100 Trying", "A out 603 Decline", "A in ACK"]);
  }, 60_000);

  it("left in the spool by an earlier run is uploaded at start, whole lines only", async () => {
    const port = await freeUdpPort();
    const account = await openAccount(stack, port);
    const worker = workerClient({ url: stack.api, nodeToken: stack.nodeToken });
    const admit = (sip: string) =>
      worker.admit({
        node_id: "test-node",
        sip_call_id: sip,
        src_ip: account.src,
        ani: "14155550100",
        dialed: "14155550123",
        origin: "sip",
      });
    const [crashed, empty] = [await admit("crashed@test"), await admit("crashed-early@test")];
    if (crashed.decision !== "admit" || empty.decision !== "admit") throw new Error("not admitted");
    // An earlier run's calls: their records are in D1 by the time a node starts again.
    await recorded(account, crashed.call_id);
    await recorded(account, empty.call_id);
    const line = (n: number) =>
      JSON.stringify({
        time_stamp: new Date(Date.now() + n).toISOString(),
        direction: "in",
        method: "INVITE",
        status: null,
        fromip: `${account.src}:5060`,
        toip: "127.0.0.1:5060",
        fromtag: "t1",
        totag: null,
        first_line: `INVITE sip:${n}@127.0.0.1 SIP/2.0`,
        raw: `INVITE sip:${n}@127.0.0.1 SIP/2.0\r\nCall-ID: crashed@test\r\nCSeq: ${n} INVITE\r\n\r\n`,
      });
    // What a crash leaves: two whole lines and one cut short; and a log with nothing whole in it.
    const spool = mkdtempSync(join(tmpdir(), "sip-log-spool-"));
    const media = { portMin: 50_010, portMax: 50_019, bind: "127.0.0.1", timeoutMs: 60_000, holdTimeoutMs: 60_000, spoolDir: spool };
    const engine = new MediaEngine({ ...media, publicAddress: "127.0.0.1" }, worker, () => {});
    writeFileSync(engine.spool.path(crashed.call_id, "sip-log.jsonl"), `${line(1)}\n${line(2)}\n${line(3).slice(0, 40)}`);
    writeFileSync(engine.spool.path(empty.call_id, "sip-log.jsonl"), line(4).slice(0, 30));
    expect(await engine.uploadLeftovers()).toBe(1);
    engine.stop();
    expect(readdirSync(spool).filter((f) => !f.startsWith("."))).toEqual([]);
    const log = await account.call(`/api/calls/${crashed.call_id}/sip-log`);
    expect(log.messages.map((m: any) => m.first_line)).toEqual(["INVITE sip:1@127.0.0.1 SIP/2.0", "INVITE sip:2@127.0.0.1 SIP/2.0"]);
    expect((await account.call(`/api/calls/${empty.call_id}/sip-log`)).messages).toEqual([]);
  }, 60_000);
});

describe("the ladder while the call is up", () => {
  it("is the node's answer to the stats command: the messages recorded so far, which the end's ladder then starts with", async () => {
    const port = await freeUdpPort();
    const account = await openAccount(stack, port);
    const callee = uas("uas.xml", port);
    await callee.listening;
    const caller = uac(stack, account.src, "uac-talk.xml", "14155550123", { TALK_MS: "3000" });
    const lines = (messages: any[]) =>
      messages.map(
        (m) => `${(m.direction === "in" ? m.fromip : m.toip) === `127.0.0.1:${port}` ? "B" : "A"} ${m.direction} ${m.status ?? m.method}`,
      );
    // The inspector asks the node carrying the call through the NodeHub (`stats`) at every poll.
    const live = await until(
      "the answered call's ladder in the inspector",
      async () => {
        const id = (await account.call("/api/calls")).items?.find((c: any) => c.status === "active")?.id;
        const inspect = id && (await account.call(`/api/calls/${id}/inspect`));
        return inspect?.live && lines(inspect.ladder).includes("A out 200 OK") && inspect;
      },
      10_000,
      100,
    );
    expect(lines(live.ladder)).toEqual([
      "A in INVITE",
      "A out 100 Trying",
      "B out INVITE",
      "B in 180 Ringing",
      "A out 180 Ringing",
      "B in 200 OK",
      "B out ACK",
      "A out 200 OK",
    ]);
    // The node's own copy is what it answered; no more messages while the call talks.
    expect(stack.node.calls.ladder(live.call.id)).toHaveLength(live.ladder.length);
    expect(live.ladder[0]).toMatchObject({ method: "INVITE", status: null, totag: null, headers: null });
    expect(live.ladder[0].first_line).toMatch(/^INVITE sip:14155550123@/);

    expect((await caller).code).toBe(0);
    expect((await callee).code).toBe(0);
    const call = await endedCall(account);
    expect(call.id).toBe(live.call.id);
    // After the end, the record: the same messages, in the same shape, and the BYEs after them.
    const recorded = await until(
      "the end's ladder in the record",
      async () => {
        const inspect = await account.call(`/api/calls/${call.id}/inspect`);
        return !inspect.live && inspect.ladder.length > live.ladder.length && inspect;
      },
      10_000,
      100,
    );
    expect(recorded.ladder.slice(0, live.ladder.length)).toEqual(live.ladder);
    expect(lines(recorded.ladder.slice(live.ladder.length))).toEqual(["A in BYE", "B out BYE", "B in 200 OK"]);
  }, 60_000);
});
