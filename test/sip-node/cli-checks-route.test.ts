// CLI checks end to end with real SIP parts: the Worker (wrangler dev) places a check's call through
// the SIP node to the account's destination, a Kamailio route (four of them: keeping the caller ID,
// prefixing it, withholding it, dropping the call) that delivers to the node's hosted-number
// listener; the result, the fee and the minutes are read back through the public API. A hosted
// number is confirmed live by a sipp call and earns its share; a schedule whose second run differs
// alerts once through a local webhook receiver.
import { spawn, type ChildProcess } from "node:child_process";
import { createServer, type Server } from "node:http";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { freeTcpPort } from "../../scripts/lib/ports.mjs";
import { freeSipPort, freeUdpPort, openAccount, pause, sipp, startStack, until, type Stack, type TestAccount } from "./harness.ts";

const CONFIG = new URL("./scenarios/cli-route.kamailio.cfg", import.meta.url).pathname;
const CALLEE_BYE = new URL("./scenarios/uac-callee-bye.xml", import.meta.url).pathname;
const GB_NUMBER = "+442079460000";
const FR_HOSTED = "+33123456789";
const SENT = "+18005550100";

let stack: Stack;
let kamailio: ChildProcess;
let listenerPort: number;
const route = { keep: 0, rewrite: 0, withhold: 0, drop: 0 };
/** What the local webhook receiver was sent. */
const hooks: { type: string; data: any }[] = [];
let receiver: Server;
let receiverPort: number;

beforeAll(async () => {
  listenerPort = await freeSipPort();
  for (const name of Object.keys(route) as (keyof typeof route)[]) route[name] = await freeSipPort();
  receiverPort = await freeTcpPort();
  receiver = createServer(async (req, res) => {
    let body = "";
    for await (const chunk of req) body += chunk;
    hooks.push(JSON.parse(body));
    res.end("ok");
  });
  await new Promise<void>((resolve) => receiver.listen(receiverPort, "127.0.0.1", resolve));
  stack = await startStack(
    { CLI_LISTEN_PORT: String(listenerPort) },
    {
      CLI_NUMBERS: `GB=${GB_NUMBER}`,
      CLI_LISTENER_URI: `sip:127.0.0.1:${listenerPort}`,
      // The webhook receiver is on loopback.
      OUTBOUND_ALLOW_LOOPBACK: "true",
    },
  );
  await stack.node.hub.connected;
  kamailio = spawn(
    "kamailio",
    [
      "-f",
      CONFIG,
      ...Object.values(route).flatMap((port) => ["-l", `udp:127.0.0.1:${port}`]),
      "-DD",
      "-E",
      "-A",
      `LISTENER_ADDR=127.0.0.1:${listenerPort}`,
      "-A",
      `REWRITE_PORT=${route.rewrite}`,
      "-A",
      `WITHHOLD_PORT=${route.withhold}`,
      "-A",
      `DROP_PORT=${route.drop}`,
    ],
    { stdio: "ignore" },
  );
  await pause(1_500);
}, 180_000);

afterAll(async () => {
  kamailio?.kill("SIGTERM");
  await stack?.stop();
  await new Promise((resolve) => receiver?.close(resolve));
});

async function addRoute(account: TestAccount, port: number, label: string) {
  const res = await account.call("/api/customer/destinations", { body: { host: "127.0.0.1", port, label } });
  if (!res?.id) throw new Error(`destination: ${JSON.stringify(res)}`);
  return res.id as string;
}

/** Asks for a check and waits until it leaves placing. */
async function checkThrough(account: TestAccount, destinationId: string, country: string) {
  const asked = await account.call("/api/customer/cli/checks", { body: { destination_id: destinationId, country } });
  if (asked?.status !== "placing") throw new Error(`check: ${JSON.stringify(asked)}`);
  return until(
    `check ${asked.id} to finish`,
    async () => {
      const check = await account.call(`/api/customer/cli/checks/${asked.id}`);
      return check.status !== "placing" && check;
    },
    40_000,
    250,
  );
}

const balanceOf = async (account: TestAccount) => (await account.call("/api/customer/balance")).balance as number;

describe("a CLI check through a Kamailio route", () => {
  it("reads match, modified, withheld and not_received, with the fee and the minutes in the ledger once each", async () => {
    const account = await openAccount(stack, route.keep);
    const destinations = {
      keep: account.destination.id as string,
      rewrite: await addRoute(account, route.rewrite, "prefixing route"),
      withhold: await addRoute(account, route.withhold, "withholding route"),
      drop: await addRoute(account, route.drop, "dropping route"),
    };
    const kept = await checkThrough(account, destinations.keep, "GB");
    expect(kept).toMatchObject({ status: "completed", result: "match", sent: { caller_id: SENT }, received: { from: SENT, privacy: [] } });
    expect(kept.post_dial_delay_ms).toBeGreaterThanOrEqual(0);
    expect(kept.answer_delay_ms).toBeGreaterThanOrEqual(0);
    // What the listener heard arrives with its own report, as it hangs up.
    const heard = await until(
      "the listener's MOS of the sample",
      async () =>
        (await account.call(`/api/customer/cli/checks/${kept.id}`)).mos.sent !== null &&
        (await account.call(`/api/customer/cli/checks/${kept.id}`)),
      10_000,
      200,
    );
    expect(heard.mos.sent).toBeGreaterThan(3.5);
    expect(heard.mos.received).toBeGreaterThan(3.5);

    const prefixed = await checkThrough(account, destinations.rewrite, "GB");
    expect(prefixed).toMatchObject({
      result: "modified",
      change: "prefix",
      sent: { caller_id: SENT },
      received: { from: "101018005550100" },
    });
    const withheld = await checkThrough(account, destinations.withhold, "GB");
    expect(withheld).toMatchObject({ result: "withheld", received: { from: "anonymous", privacy: ["id"] } });
    const dropped = await checkThrough(account, destinations.drop, "GB");
    expect(dropped).toMatchObject({ status: "completed", result: "not_received", received: null, sip_code: 480 });

    const ledger = (await account.call("/api/customer/ledger?limit=100")).items as { type: string; call_id: string | null }[];
    expect(ledger.filter((e) => e.type === "cli_check")).toHaveLength(4);
    for (const check of [kept, prefixed, withheld]) {
      expect(check.call_id).not.toBeNull();
      expect(
        ledger.filter((e) => e.call_id === check.call_id && e.type === "call"),
        `the minutes of ${check.result}`,
      ).toHaveLength(1);
    }
  });
});

describe("a hosted number", () => {
  it("is confirmed live by a sipp call, answers a check and is credited its share", async () => {
    const host = await openAccount(stack, route.keep);
    const enrolled = await host.call("/api/customer/hosted-numbers", { body: { number: FR_HOSTED } });
    expect(enrolled).toMatchObject({ status: "pending", forward_to: `sip:${FR_HOSTED}@127.0.0.1:${listenerPort}` });
    await host.call(`/api/customer/hosted-numbers/${enrolled.id}/test`, { method: "POST" });
    const call = await sipp([
      "-sf",
      CALLEE_BYE,
      "-i",
      "127.0.0.1",
      "-p",
      "0",
      "-mp",
      String(await freeUdpPort()),
      "-s",
      FR_HOSTED,
      `127.0.0.1:${listenerPort}`,
    ]);
    expect(call.code, call.output).toBe(0);
    expect(await host.call(`/api/customer/hosted-numbers/${enrolled.id}`)).toMatchObject({ status: "live" });

    const checker = await openAccount(stack, route.keep);
    const before = await balanceOf(host);
    const check = await checkThrough(checker, checker.destination.id, "FR");
    expect(check).toMatchObject({ result: "match", hosted: true });
    expect(await balanceOf(host)).toBeCloseTo(before + 0.025, 6);
    expect((await host.call("/api/customer/hosted-numbers")).items[0]).toMatchObject({ checks_answered: 1, earnings_usd: 0.025 });
  });
});

describe("a schedule", () => {
  it("alerts once through the webhook when its second run differs from the first", async () => {
    const account = await openAccount(stack, route.keep);
    const secret = `whsec_${Buffer.from("0123456789abcdef01234567").toString("base64")}`;
    await account.call("/api/customer/webhook", { method: "PUT", body: { url: `http://127.0.0.1:${receiverPort}/hook`, secret } });
    const schedule = await account.call("/api/customer/cli/schedules", {
      body: { kind: "cli_check", destination_id: account.destination.id, country: "GB", every: "daily" },
    });
    expect(schedule.last_run_id).toBeTruthy();
    const outcome = (wanted: string) =>
      until(
        `the schedule's outcome ${wanted}`,
        async () => (await account.call(`/api/customer/cli/schedules/${schedule.id}`)).last_outcome === wanted,
        40_000,
        250,
      );
    await outcome("match");
    // The route starts prefixing the caller ID; the next run is due now.
    await account.call(`/api/customer/destinations/${account.destination.id}`, { method: "PATCH", body: { port: route.rewrite } });
    await stack.sql(`UPDATE cli_schedules SET next_run_at = '2000-01-01T00:00:00.000Z' WHERE id = '${schedule.id}'`);
    expect((await fetch(`${stack.api}/__scheduled?cron=*/10+*+*+*+*`)).status).toBe(200);
    await outcome("modified_prefix");
    await until("the alert at the webhook receiver", () => hooks.some((h) => h.type === "schedule.outcome_changed"), 20_000, 200);
    await pause(1_000);
    const alerts = hooks.filter((h) => h.type === "schedule.outcome_changed");
    expect(alerts).toHaveLength(1);
    expect(alerts[0]!.data).toMatchObject({ schedule_id: schedule.id, previous_outcome: "match", outcome: "modified_prefix" });
  });
});
