// A velocity flood end to end, nothing faked: sipp dials 200 consecutive numbers from one caller ID
// in about a minute through the SIP node, the Worker under `wrangler dev` admitting each in the
// account's ledger with calls_per_minute set to refuse past 50. The first 50 are answered by a sipp
// destination; from the 51st on each is refused with 603 and a Reason header naming the rule (the
// scenario fails a call without it); the refusals are counted in the stats; the breach is alerted
// once to the account webhook (an HTTP server of this test, OUTBOUND_ALLOW_LOOPBACK); and a call from
// another caller ID placed meanwhile is answered.
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { createServer, type Server } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Webhook } from "standardwebhooks";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { freeTcpPort } from "../../scripts/lib/ports.mjs";
import { freeSipPort, freeUdpPort, openAccount, pause, sipp, startStack, syncLedger, uac, uas, until, type Stack } from "./harness.ts";

const SECRET = `whsec_${Buffer.from("velocity flood end to end secret").toString("base64")}`;
const FLOOD_CALLER = "12025550100";
const CALLS = 200;
const THRESHOLD = 50;
const FIRST = 14155551000;

let stack: Stack;
let server: Server;
let hookUrl: string;
const received: Array<{ type: string; data: any }> = [];

beforeAll(async () => {
  const port = await freeTcpPort();
  server = createServer((req, res) => {
    let body = "";
    req.on("data", (chunk) => (body += chunk));
    req.on("end", () => {
      const headers = Object.fromEntries(Object.entries(req.headers).map(([k, v]) => [k, String(v)]));
      try {
        const event = new Webhook(SECRET).verify(body, headers) as { type: string; data: any };
        received.push(event);
        res.writeHead(200).end();
      } catch {
        res.writeHead(401).end();
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(port, "127.0.0.1", resolve));
  hookUrl = `http://127.0.0.1:${port}/hook`;
  stack = await startStack({}, { OUTBOUND_ALLOW_LOOPBACK: "true" });
}, 120_000);

afterAll(async () => {
  await stack?.stop();
  await new Promise((resolve) => server?.close(resolve));
});

/** The flood's scenario with its caller and rule, and an injection file of `CALLS` consecutive numbers. */
function floodFiles(): { scenario: string; numbers: string } {
  const dir = mkdtempSync(join(tmpdir(), "velocity-flood-"));
  const scenario = join(dir, "uac-flood.xml");
  const xml = readFileSync(new URL("./scenarios/uac-flood.xml", import.meta.url), "utf8");
  writeFileSync(scenario, xml.replaceAll("__ANI__", FLOOD_CALLER).replaceAll("__RULE__", "calls_per_minute"));
  const numbers = join(dir, "numbers.csv");
  writeFileSync(numbers, ["SEQUENTIAL", ...Array.from({ length: CALLS }, (_, i) => `${FIRST + i};`)].join("\n") + "\n");
  return { scenario, numbers };
}

describe("a velocity flood", () => {
  it("is refused from the threshold on, counted, alerted once, and other caller IDs pass", async () => {
    const port = await freeSipPort();
    const account = await openAccount(stack, port);
    // Ports enough for the answered calls; the webhook to this test's server.
    await stack.sql(`UPDATE customers SET ports_override = 20 WHERE id = '${account.id}'`);
    await syncLedger(account);
    const hook = await account.call("/api/customer/webhook", { method: "PUT", body: { url: hookUrl, secret: SECRET } });
    expect(hook.url).toBe(hookUrl);
    const rules = await account.call("/api/customer/screening/rules", {
      method: "PUT",
      body: { rules: { calls_per_minute: { action: "refuse", threshold: THRESHOLD } } },
    });
    expect(rules.rules.calls_per_minute).toMatchObject({ action: "refuse", threshold: THRESHOLD, scope: "caller_id" });

    const callee = uas("uas.xml", port, false, {}, THRESHOLD + 1);
    await callee.listening;
    const { scenario, numbers } = floodFiles();
    const started = Date.now();
    // 10 calls every 3 s: 200 in about a minute.
    const flood = sipp(
      [
        "-sf",
        scenario,
        "-inf",
        numbers,
        "-i",
        account.src,
        "-p",
        "0",
        "-mp",
        String(await freeUdpPort()),
        "-m",
        String(CALLS),
        "-r",
        "10",
        "-rp",
        "3000",
        `127.0.0.1:${stack.node.port}`,
      ],
      150,
    );
    // Meanwhile, once the flood is refused, another caller ID from the same trunk.
    let floodEnded: { code: number | null; output: string } | null = null;
    void flood.then((result) => (floodEnded = result));
    await until(
      "the flood to pass the threshold",
      async () => {
        if (floodEnded) throw new Error(`the flood ended early (${floodEnded.code}):\n${floodEnded.output}`);
        return (await callsOf(account)).length > THRESHOLD + 10;
      },
      60_000,
      250,
    );
    const other = await uac(stack, account.src, "uac.xml", "14155550123");
    expect(other.code, other.output).toBe(0);
    const flooded = await flood;
    expect(flooded.code, flooded.output).toBe(0);
    expect(Date.now() - started).toBeGreaterThan(50_000);
    expect((await callee).code).toBe(0);

    const calls = await until("every call recorded", async () => {
      const all = await callsOf(account);
      return all.length === CALLS + 1 && all;
    });
    const floodCalls = calls.filter((c: any) => c.ani === FLOOD_CALLER || c.ani === `+${FLOOD_CALLER}`);
    expect(floodCalls).toHaveLength(CALLS);
    const byNumber = floodCalls.sort((a: any, b: any) => Number(a.dialed) - Number(b.dialed));
    expect(byNumber.slice(0, THRESHOLD).every((c: any) => c.status === "completed")).toBe(true);
    const refused = byNumber.slice(THRESHOLD);
    expect(refused.every((c: any) => c.status === "rejected" && c.sip_code === 603 && c.end_reason === "screening:calls_per_minute")).toBe(
      true,
    );
    const otherCall = calls.find((c: any) => !floodCalls.includes(c));
    expect(otherCall).toMatchObject({ status: "completed", dialed: "14155550123" });

    const stats = await account.call("/api/customer/screening/stats");
    expect(stats.rules.find((r: any) => r.rule === "calls_per_minute")).toMatchObject({ refused: CALLS - THRESHOLD, flagged: 0 });

    // One alert for the breach however many calls broke it (other velocity rules, flagging by default, alert once each too).
    await until(
      "the breach alerted",
      () => received.some((e) => e.type === "screening.breach" && e.data.rule === "calls_per_minute"),
      20_000,
    );
    await pause(2_000);
    const breaches = received.filter((e) => e.type === "screening.breach");
    expect(breaches.filter((e) => e.data.rule === "calls_per_minute")).toEqual([
      {
        type: "screening.breach",
        timestamp: expect.any(String),
        data: expect.objectContaining({
          rule: "calls_per_minute",
          scope: "caller_id",
          key: `+${FLOOD_CALLER}`,
          action: "refuse",
          detail: `${THRESHOLD + 1} calls in a minute from +${FLOOD_CALLER}`,
        }),
      },
    ]);
    const perRule = breaches.map((e) => e.data.rule);
    expect(new Set(perRule).size).toBe(perRule.length);
  }, 240_000);
});

async function callsOf(account: { call(path: string): Promise<any> }): Promise<any[]> {
  return (await account.call("/api/calls?limit=500")).items ?? [];
}
