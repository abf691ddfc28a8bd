// The node's control paths: on-demand OPTIONS checks arriving over the NodeHub socket, and the
// monitor's hysteresis.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { MISSES_BEFORE_DOWN } from "../../sip-node/monitor/monitor.ts";
import { freeUdpPort, openAccount, startStack, uas, type Stack } from "./harness.ts";

let stack: Stack;

beforeAll(async () => {
  stack = await startStack();
  await stack.node.hub.connected;
}, 120_000);

afterAll(async () => {
  await stack?.stop();
});

describe("POST /api/customer/destinations/{id}/check through the node", () => {
  it("sends a real OPTIONS and reports the answer with its round trip", async () => {
    const port = await freeUdpPort();
    const account = await openAccount(stack, port);
    const destination = uas("uas-options.xml", port);
    await destination.listening;
    const checked = await account.call(`/api/customer/destinations/${account.destination.id}/check`, { method: "POST" });
    expect(checked).toMatchObject({ monitor_status: "up", monitor_last_code: 200, monitor_enabled: true, monitor_supported: true });
    expect(checked.monitor_rtt_ms).toBeGreaterThanOrEqual(0);
    expect((await destination).code).toBe(0);
  });

  it("reports down with the reason when nothing answers", async () => {
    const account = await openAccount(stack, await freeUdpPort());
    const checked = await account.call(`/api/customer/destinations/${account.destination.id}/check`, { method: "POST" });
    expect(checked).toMatchObject({ monitor_status: "down", monitor_last_code: null, monitor_last_error: "no response in 2 s" });
  });
});

describe("monitor hysteresis", () => {
  it("marks a destination down only after several misses in a row, up on the first answer", () => {
    const monitor = stack.node.monitor;
    const id = crypto.randomUUID();
    const seen = [];
    for (let i = 0; i < MISSES_BEFORE_DOWN; i++) seen.push(monitor.next(id, false));
    seen.push(monitor.next(id, true), monitor.next(id, false));
    expect(seen).toEqual([...Array(MISSES_BEFORE_DOWN - 1).fill("up"), "down", "up", "up"]);
  });
});
