// Transfers ordered through the public API: the Worker reaches the node carrying the call over
// the NodeHub; the node bridges the caller to the target (platform) or REFERs the caller's side.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { freeUdpPort, openAccount, pause, startStack, uac, uas, type Stack, type TestAccount } from "./harness.ts";

let stack: Stack;

beforeAll(async () => {
  stack = await startStack();
}, 120_000);

afterAll(async () => {
  await stack?.stop();
});

async function callInState(account: TestAccount, done: (call: any) => boolean): Promise<any> {
  for (let i = 0; i < 100; i++) {
    const call = (await account.call("/api/calls")).items?.[0];
    if (call && done(call)) return account.call(`/api/calls/${call.id}`);
    await pause(100);
  }
  throw new Error("the call never got there");
}

const transfer = async (account: TestAccount, callId: string, target: string) => {
  const res = await fetch(`${stack.api}/api/calls/${callId}/transfer`, {
    method: "POST",
    headers: { authorization: `Bearer ${account.token}`, "content-type": "application/json" },
    body: JSON.stringify({ target }),
  });
  return { status: res.status, body: (await res.json()) as any };
};

describe("transfers", () => {
  it("bridges the caller to the target at the destination and hangs up the old callee (platform)", async () => {
    const port = await freeUdpPort();
    const account = await openAccount(stack, port);
    // The destination takes two calls: the original and the transfer target's.
    const callee = uas("uas-hungup.xml", port, false, {}, 2);
    await callee.listening;
    const caller = uac(stack, account.src, "uac-talk.xml", "14155550123", { TALK_MS: "3000" });
    const up = await callInState(account, (c) => c.status === "active");

    const started = await transfer(account, up.id, "15550001111");
    expect(started).toEqual({ status: 202, body: { status: "in_progress", target: "15550001111", mode: "platform" } });
    const transferred = await callInState(account, (c) => c.transfer_status !== "in_progress");
    expect(transferred).toMatchObject({
      status: "active",
      transfer_status: "completed",
      transfer_code: 200,
      transfer_target: "15550001111",
      transfer_mode: "platform",
    });

    expect((await caller).code).toBe(0);
    const both = await callee;
    expect(both.code, both.output).toBe(0);
    expect(await callInState(account, (c) => c.status === "completed")).toMatchObject({
      hangup_by: "caller",
      transfer_status: "completed",
    });
  }, 60_000);

  it("asks the caller's side to call the target with REFER and follows its NOTIFY", async () => {
    const port = await freeUdpPort();
    const account = await openAccount(stack, port, { transfer_mode: "refer" });
    const callee = uas("uas-hungup.xml", port);
    await callee.listening;
    const caller = uac(stack, account.src, "uac-refer.xml", "14155550123", { TARGET: "15550002222" });
    const up = await callInState(account, (c) => c.status === "active");

    expect(await transfer(account, up.id, "15550002222")).toEqual({
      status: 202,
      body: { status: "in_progress", target: "15550002222", mode: "refer" },
    });
    const referred = await caller;
    expect(referred.code, referred.output).toBe(0);
    expect((await callee).code).toBe(0);
    expect(await callInState(account, (c) => c.status === "completed")).toMatchObject({
      transfer_status: "completed",
      transfer_code: 200,
      transfer_mode: "refer",
    });
  }, 60_000);

  it("refuses a call that is not up (409), a bad target (422) and another account's call (404)", async () => {
    const port = await freeUdpPort();
    const account = await openAccount(stack, port);
    const other = await openAccount(stack, port);
    const callee = uas("uas.xml", port);
    await callee.listening;
    expect((await uac(stack, account.src, "uac.xml")).code).toBe(0);
    await callee;
    const ended = await callInState(account, (c) => c.status === "completed");
    const refused = await transfer(account, ended.id, "15550001111");
    expect(refused.status).toBe(409);
    expect(refused.body.detail).toBe("only a call that is up can be transferred");
    const bad = await transfer(account, ended.id, "sip:evil@example.com");
    expect(bad.status).toBe(422);
    expect(bad.body.detail[0]).toMatchObject({ loc: ["body", "target"], msg: "target must be digits, * and # only" });
    expect((await transfer(other, ended.id, "15550001111")).status).toBe(404);
    expect((await account.call(`/api/calls/${ended.id}`)).transfer_status).toBeNull();
  }, 60_000);
});
