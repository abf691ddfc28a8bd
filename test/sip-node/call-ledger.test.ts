// The call ledger with a node that dies or is cut off (issue 12), with real parts: the Worker
// under wrangler dev (a 3 s lease), the SIP node as its own process (sip-node/main.ts) and sipp on
// both sides. Killed with SIGKILL and started again, the node's calls are ended as node_lost
// within the lease plus a few seconds, each charged once to its last renewal, and the account
// takes calls again; cut off from the Worker for longer than the lease while its calls go on, it
// reconnects and every call is charged once, as it really ended.
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { answersFrom, freeUdpPort, openAccount, pause, sippServer, startStack, uac, type Stack, type TestAccount } from "./harness.ts";
import { startLinkProxy, startNodeProcess, type LinkProxy, type NodeProcess } from "./node-process.ts";

const LEASE_SECONDS = 3;
/** The plan of these tests: billed by the second from the first, $0.001 a second. */
const MICROS_PER_SECOND = 1_000;

let stack: Stack;
const nodes: NodeProcess[] = [];
let proxy: LinkProxy | null = null;

beforeAll(async () => {
  stack = await startStack({}, { NODE_LEASE_SECONDS: String(LEASE_SECONDS) });
  await stack.sql(
    "INSERT OR IGNORE INTO plans (code, name, monthly_fee_micros, ports, per_minute_rate_micros, min_billable_seconds, active, sort_order) " +
      `VALUES ('per-second', 'Per second', 0, 2, ${MICROS_PER_SECOND * 60}, 1, 0, 92)`,
  );
}, 120_000);

afterEach(async () => {
  for (const node of nodes.splice(0)) if (node.child.exitCode === null && node.child.signalCode === null) await node.kill("SIGKILL");
  await proxy?.close();
  proxy = null;
});

afterAll(async () => {
  await stack?.stop();
});

let nextSync = 1;

/** An account on the per-second plan, out of its pilot (charged in money), calling through `node`'s port. */
async function perSecondAccount(destinationPort: number): Promise<TestAccount> {
  const account = await openAccount(stack, destinationPort);
  await stack.sql(`UPDATE customers SET plan_code = 'per-second', pilot_ends_at = '2020-01-01T00:00:00.000Z' WHERE id = '${account.id}'`);
  // An API write brings the account's ledger up to date with D1 (syncAdmissionState).
  const sync = await account.call("/api/customer/ips", { body: { cidr: `127.0.99.${nextSync++}/32`, label: "sync" } });
  expect(sync.cidr).toBeDefined();
  expect(await account.call("/api/customer/balance")).toMatchObject({ plan: "per-second", ports: 2 });
  return account;
}

/** The node as its own process, once it answers `account`'s address (it reads the whitelist as it starts). */
async function nodeProcess(account: TestAccount, env: Record<string, string>) {
  const node = await startNodeProcess(stack, { NODE_HEARTBEAT_SECONDS: "1", NODE_ID: "ledger-process", ...env });
  nodes.push(node);
  await answersFrom(node.port, account.src);
  return node;
}

/** sipp as the destination for `calls` calls, for up to `seconds`. */
function destination(port: number, calls: number, seconds = 90) {
  const scenario = new URL("./scenarios/uas.xml", import.meta.url).pathname;
  return sippServer(["-sf", scenario, "-i", "127.0.0.1", "-p", String(port), "-m", String(calls)], port, false, seconds);
}

/** harness.uac needs only the node's port of a stack. */
const through = (node: NodeProcess) => ({ ...stack, node: { ...stack.node, port: node.port } }) as Stack;

async function until<T>(what: string, check: () => Promise<T | null | undefined | false>, timeoutMs: number): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await pause(200);
  }
}

const activeCalls = async (account: TestAccount) => (await account.call("/api/customer/balance")).active_calls as number;
const calls = async (account: TestAccount) => (await account.call("/api/calls")).items as any[];
const ledgerOf = async (account: TestAccount, callId: string) =>
  ((await account.call("/api/customer/ledger?limit=100")).items as any[]).filter((e) => e.call_id === callId);

/** What the call's ledger entries took from the balance, in micro-dollars. */
const chargedMicros = (entries: any[]) => Math.round(entries.reduce((sum, e) => sum - e.amount * 1_000_000, 0));

describe("a node killed with SIGKILL", () => {
  it("has its calls ended as node_lost within the lease, each charged once to its last renewal, and the account takes calls again", async () => {
    const port = await freeUdpPort();
    const account = await perSecondAccount(port);
    const spool = mkdtempSync(join(tmpdir(), "ledger-kill-"));
    const first = await nodeProcess(account, { MEDIA_SPOOL_DIR: spool });
    // Two calls it never hears the end of (their BYE never comes: it gives up after 40 s), then one more.
    const callee = destination(port, 3, 40);
    await callee.listening;
    // Two calls held until a BYE that never comes (the node dies).
    void uac(through(first), account.src, "uac-callee-bye.xml");
    void uac(through(first), account.src, "uac-callee-bye.xml");
    await until("two calls up", async () => (await activeCalls(account)) === 2, 10_000);
    await pause(3_000); // talk, with heartbeats renewing the lease every second
    const killedAt = Date.now();
    expect((await first.kill("SIGKILL")).signal).toBe("SIGKILL");

    const second = await startNodeProcess(stack, {
      NODE_HEARTBEAT_SECONDS: "1",
      NODE_ID: "ledger-process",
      MEDIA_SPOOL_DIR: spool,
      SIP_PORT: String(first.port),
    });
    nodes.push(second);
    await until("active_calls 0", async () => (await activeCalls(account)) === 0, (LEASE_SECONDS + 5) * 1000);
    expect(Date.now() - killedAt).toBeLessThan((LEASE_SECONDS + 5) * 1000);

    const lost = await until(
      "both calls ended in GET /calls",
      async () => {
        const ended = (await calls(account)).filter((c) => c.end_reason === "node_lost");
        return ended.length === 2 && ended;
      },
      10_000,
    );
    for (const call of lost) {
      expect(call).toMatchObject({ status: "completed", hangup_by: "platform", end_reason: "node_lost" });
      // Ended at the last renewal: at most a heartbeat (1 s) and a round trip before the kill.
      // A report already on its way when the signal struck may reach the Worker just after.
      const endedAt = Date.parse(call.ended_at);
      expect(endedAt).toBeLessThanOrEqual(killedAt + 1_000);
      expect(endedAt).toBeGreaterThan(killedAt - 2_500);
      const talk = (endedAt - Date.parse(call.answered_at)) / 1000;
      expect(call.billsec).toBe(Math.ceil(talk));
      expect(call.billsec).toBeGreaterThanOrEqual(2);
      // Charged once, for those seconds.
      const entries = await ledgerOf(account, call.id);
      expect(entries).toHaveLength(1);
      expect(chargedMicros(entries)).toBe(call.billsec * MICROS_PER_SECOND);
    }

    // The ports are free again: a new call through the restarted node is admitted and completes.
    await answersFrom(second.port, account.src);
    const caller = await uac(through(second), account.src, "uac.xml");
    expect(caller.code, caller.output).toBe(0);
    await until(
      "the new call completed",
      async () => (await calls(account)).find((c) => c.status === "completed" && c.end_reason !== "node_lost"),
      10_000,
    );
    void callee;
  });
});

describe("a node cut off from the Worker for longer than the lease", () => {
  it("reconnects with its calls charged once each, as they really ended", async () => {
    const port = await freeUdpPort();
    const account = await perSecondAccount(port);
    proxy = await startLinkProxy(stack.api);
    const node = await nodeProcess(account, { WORKER_URL: proxy.url, MEDIA_SPOOL_DIR: mkdtempSync(join(tmpdir(), "ledger-cut-")) });
    const callee = destination(port, 2);
    await callee.listening;
    // A talks 6 s and hangs up (during the cut); B stays up until the ledger's answer ends it.
    const talker = uac(through(node), account.src, "uac-talk.xml", "14155550123", { TALK_MS: "6000" });
    const holder = uac(through(node), account.src, "uac-callee-bye.xml");
    await until("two calls up", async () => (await activeCalls(account)) === 2, 10_000);
    await pause(500); // deliberate: the calls talk a moment on a working link (heartbeats renew them) before the cut
    proxy.cut();
    // The lease lapses: the ledger ends both calls as node_lost and frees the ports, while they go on.
    await until("the ledger ended both calls", async () => (await activeCalls(account)) === 0, (LEASE_SECONDS + 5) * 1000);
    expect((await talker).code).toBe(0); // A hung up during the cut
    await pause(1_000); // deliberate: the link stays cut a while after A's end, whose report keeps failing meanwhile
    const restoredAt = Date.now();
    proxy.restore();
    expect((await holder).code).toBe(0); // B hung up by the node once the ledger answered it had ended it
    expect((await callee).code).toBe(0);

    const [a, b] = await until(
      "both real ends in GET /calls",
      async () => {
        const list = await calls(account);
        const talkerCall = list.find((c) => c.hangup_by === "caller");
        const holderCall = list.find((c) => c.hangup_by === "platform" && c.ended_at && Date.parse(c.ended_at) >= restoredAt - 1_000);
        return talkerCall && holderCall && [talkerCall, holderCall];
      },
      15_000,
    );
    // A: charged for its 6 s of talk, not to the lease's lapse.
    expect(a.billsec).toBeGreaterThanOrEqual(6);
    expect(a.billsec).toBeLessThanOrEqual(7);
    // B: charged until the node hung it up after the link came back.
    expect(b).toMatchObject({ status: "completed", end_reason: "node_lost" });
    const bTalk = (Date.parse(b.ended_at) - Date.parse(b.answered_at)) / 1000;
    expect(b.billsec).toBe(Math.ceil(bTalk));
    expect(Date.parse(b.ended_at)).toBeGreaterThanOrEqual(restoredAt);
    for (const call of [a, b]) {
      const entries = await ledgerOf(account, call.id);
      expect(chargedMicros(entries), `ledger of ${call.id}: ${JSON.stringify(entries)}`).toBe(call.billsec * MICROS_PER_SECOND);
    }
    expect(await activeCalls(account)).toBe(0);
  });
});

describe("a node killed while cut off, after a call ended", () => {
  it("sends the journaled end when started again, and the call is charged as it really ended", async () => {
    const port = await freeUdpPort();
    const account = await perSecondAccount(port);
    proxy = await startLinkProxy(stack.api);
    const spool = mkdtempSync(join(tmpdir(), "ledger-journal-"));
    const first = await nodeProcess(account, { WORKER_URL: proxy.url, MEDIA_SPOOL_DIR: spool });
    const callee = destination(port, 1, 40);
    await callee.listening;
    const talker = uac(through(first), account.src, "uac-talk.xml", "14155550123", { TALK_MS: "4000" });
    await until("the call up", async () => (await activeCalls(account)) === 1, 10_000);
    await pause(300); // deliberate: the call talks a moment on a working link before the cut
    proxy.cut();
    expect((await talker).code).toBe(0); // ended during the cut: its end waits in the journal
    expect((await callee).code).toBe(0);
    await until("the ledger ended it (lease lapsed)", async () => (await activeCalls(account)) === 0, (LEASE_SECONDS + 5) * 1000);
    await first.kill("SIGKILL");
    proxy.restore();

    const second = await startNodeProcess(stack, { NODE_HEARTBEAT_SECONDS: "1", NODE_ID: "ledger-process", MEDIA_SPOOL_DIR: spool });
    nodes.push(second);
    const call = await until(
      "the real end in GET /calls",
      async () => (await calls(account)).find((c) => c.hangup_by === "caller"),
      // A node process starting, its first heartbeat and the record's queue: a loaded CI machine took over 15 s.
      45_000,
    );
    expect(call.status).toBe("completed");
    expect(call.billsec).toBeGreaterThanOrEqual(4);
    expect(call.billsec).toBeLessThanOrEqual(5);
    expect(chargedMicros(await ledgerOf(account, call.id))).toBe(call.billsec * MICROS_PER_SECOND);
  });
});
