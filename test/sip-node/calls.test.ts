// Calls through the SIP node with sipp on both sides and the Worker's real admission.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  endedCall,
  freeUdpPort,
  openAccount,
  sendRaw,
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
  // RTP timeout past the credit test's six seconds of talk without RTP (the least a call is granted).
  stack = await startStack({ RTP_TIMEOUT_SECONDS: "8" });
}, 120_000);

afterAll(async () => {
  await stack?.stop();
});

/** Polls until the Worker has the call's end (the node reports it just after the last message). */
async function ledgerCall(account: TestAccount): Promise<any> {
  const entry = async () => (await account.call("/api/customer/ledger")).items.find((e: any) => e.type === "call");
  return until("the call's ledger entry", entry, 10_000, 100).catch(() => null);
}

async function balance(account: TestAccount) {
  return account.call("/api/customer/balance");
}

describe("calls through the node", () => {
  it("connects an answered call and ends it when the caller hangs up", async () => {
    const port = await freeUdpPort();
    const account = await openAccount(stack, port);
    const callee = uas("uas.xml", port);
    await callee.listening;
    const caller = await uac(stack, account.src, "uac.xml");
    expect(caller.code, caller.output).toBe(0);
    expect((await callee).code).toBe(0);
    const entry = await ledgerCall(account);
    expect(entry).toMatchObject({ type: "call", amount: 0 }); // the pilot waives it
    expect(entry.waived_amount).toBeGreaterThan(0);
    expect((await balance(account)).active_calls).toBe(0);
  });

  it("connects a call over TCP on both legs", async () => {
    const port = await freeUdpPort();
    const account = await openAccount(stack, port, { transport: "tcp" });
    const callee = uas("uas.xml", port, true);
    await callee.listening;
    const caller = await uac(stack, account.src, "uac.xml", "14155550123", {}, true);
    expect(caller.code, caller.output).toBe(0);
    const answered = await callee;
    expect(answered.code, answered.output).toBe(0);
    expect(await endedCall(account)).toMatchObject({ status: "completed", dest_transport: "tcp", hangup_by: "caller" });
  });

  it("carries a late offer: the callee's offer in the 200, the caller's answer in the ACK", async () => {
    const port = await freeUdpPort();
    const account = await openAccount(stack, port);
    const callee = uas("uas-late-offer.xml", port);
    await callee.listening;
    const caller = await uac(stack, account.src, "uac-late-offer.xml");
    expect(caller.code, caller.output).toBe(0);
    const answered = await callee;
    expect(answered.code, answered.output).toBe(0);
    expect(await endedCall(account)).toMatchObject({ status: "completed", hangup_by: "caller" });
  });

  it("ACKs the destination's 2xx again when it comes back, as if our ACK was lost", async () => {
    const port = await freeUdpPort();
    const account = await openAccount(stack, port);
    // -nr: sipp would answer our repeated ACK by repeating its 200 again, for ever.
    const callee = uas("uas-reack.xml", port, false, {}, 1, ["-nr"]);
    await callee.listening;
    const caller = await uac(stack, account.src, "uac.xml");
    expect(caller.code, caller.output).toBe(0);
    const reacked = await callee;
    expect(reacked.code, reacked.output).toBe(0);
  });

  it("relays a busy destination's 486 to the caller", async () => {
    const port = await freeUdpPort();
    const account = await openAccount(stack, port);
    const callee = uas("uas-busy.xml", port);
    await callee.listening;
    const caller = await uac(stack, account.src, "uac-rejected.xml", "14155550123", { CODE: "486", ANI: "14155550100" });
    expect(caller.code, caller.output).toBe(0);
    expect((await callee).code).toBe(0);
    await until("the port given back", async () => (await balance(account)).active_calls === 0, 5_000, 100).catch(() => {});
    expect((await balance(account)).active_calls).toBe(0);
  });

  it("cancels a ringing call: 487 to the caller, CANCEL to the destination", async () => {
    const port = await freeUdpPort();
    const account = await openAccount(stack, port);
    const callee = uas("uas-ring.xml", port);
    await callee.listening;
    const caller = await uac(stack, account.src, "uac-cancel.xml");
    expect(caller.code, caller.output).toBe(0);
    expect((await callee).code, "the destination saw the CANCEL").toBe(0);
  });

  it("gives up on a destination that rings without answering: CANCEL to it, 480 to the caller", async () => {
    const port = await freeUdpPort();
    const account = await openAccount(stack, port);
    const callee = uas("uas-ring.xml", port);
    await callee.listening;
    const caller = await uac(stack, account.src, "uac-rejected.xml", "14155550123", { CODE: "480", ANI: "14155550100" });
    expect(caller.code, caller.output).toBe(0);
    expect((await callee).code, "the destination saw the CANCEL").toBe(0);
    expect(await endedCall(account)).toMatchObject({ status: "failed", end_reason: "no_answer", hangup_by: "platform", sip_code: 480 });
  });

  it("answers a source on no whitelist with silence", async () => {
    const replies = await sendRaw(
      stack,
      "127.0.0.250",
      [
        "INVITE sip:14155550123@127.0.0.1 SIP/2.0",
        "Via: SIP/2.0/UDP 127.0.0.250:5099;branch=z9hG4bKscanner1",
        "From: <sip:100@127.0.0.250>;tag=scan",
        "To: <sip:14155550123@127.0.0.1>",
        "Call-ID: scanner-1",
        "CSeq: 1 INVITE",
        "Max-Forwards: 70",
        "Content-Length: 0",
        "",
        "",
      ].join("\n"),
    );
    expect(replies).toEqual([]);
  });

  it("refuses with 503 when no port is free", async () => {
    const port = await freeUdpPort();
    const account = await openAccount(stack, port);
    await stack.sql(`UPDATE customers SET ports_override = 0 WHERE id = '${account.id}'`);
    await syncLedger(account);
    const caller = await uac(stack, account.src, "uac-rejected.xml", "14155550123", { CODE: "503", ANI: "14155550100" });
    expect(caller.code, caller.output).toBe(0);
  });

  it("refuses with 402 when the credit cannot pay the minimum", async () => {
    const port = await freeUdpPort();
    const account = await openAccount(stack, port);
    // One wrangler d1 execute for both statements (each costs a process start of a few seconds).
    await stack.sql(
      "INSERT OR IGNORE INTO plans " +
        "(code, name, monthly_fee_micros, ports, per_minute_rate_micros, min_billable_seconds, active, sort_order) " +
        "VALUES ('pricey', 'Pricey', 0, 2, 1000000000, 60, 0, 90); " +
        `UPDATE customers SET plan_code = 'pricey', pilot_ends_at = '2020-01-01T00:00:00.000Z' WHERE id = '${account.id}'`,
    );
    await syncLedger(account);
    const caller = await uac(stack, account.src, "uac-rejected.xml", "14155550123", { CODE: "402", ANI: "14155550100" });
    expect(caller.code, caller.output).toBe(0);
  });

  it("refuses a blocked caller with 603 Decline (it should not try elsewhere)", async () => {
    const port = await freeUdpPort();
    const account = await openAccount(stack, port);
    await stack.sql(
      "INSERT INTO ani_controls (id, customer_id, ani, action, created_at) " +
        `VALUES ('${crypto.randomUUID()}', '${account.id}', '14155550666', 'block', '${new Date().toISOString()}')`,
    );
    await syncLedger(account);
    const caller = await uac(stack, account.src, "uac-rejected.xml", "14155550123", { CODE: "603", ANI: "14155550666" });
    expect(caller.code, caller.output).toBe(0);
  });

  it("passes a hold re-INVITE across and its answer back", async () => {
    const port = await freeUdpPort();
    const account = await openAccount(stack, port);
    const callee = uas("uas-hold.xml", port);
    await callee.listening;
    const caller = await uac(stack, account.src, "uac-hold.xml");
    expect(caller.code, caller.output).toBe(0);
    const held = await callee;
    expect(held.code, held.output).toBe(0);
    expect(await endedCall(account)).toMatchObject({ status: "completed", hangup_by: "caller" });
  });

  it("ends the call on the caller's side when the destination hangs up", async () => {
    const port = await freeUdpPort();
    const account = await openAccount(stack, port);
    const callee = uas("uas-bye.xml", port);
    await callee.listening;
    const caller = await uac(stack, account.src, "uac-callee-bye.xml");
    expect(caller.code, caller.output).toBe(0);
    expect((await callee).code).toBe(0);
    const call = await endedCall(account);
    expect(call).toMatchObject({ status: "completed", hangup_by: "callee", sip_code: 200, q850_cause: 16, codec: "PCMA" });
  });

  for (const [status, scenario] of [
    [401, "uas-challenge-401.xml"],
    [407, "uas-challenge-407.xml"],
  ] as const) {
    it(`answers a destination's ${status} challenge with the stored digest credential`, async () => {
      const port = await freeUdpPort();
      const account = await openAccount(stack, port, { auth_username: "trunk7", auth_password: "digest-pass-7", auth_realm: "sbc.test" });
      const callee = uas(scenario, port);
      await callee.listening;
      const caller = await uac(stack, account.src, "uac.xml");
      expect(caller.code, caller.output).toBe(0);
      const answered = await callee;
      expect(answered.code, answered.output).toBe(0);
    });
  }

  it("cuts a call on both sides when the credit runs out (credit_exhausted)", async () => {
    const port = await freeUdpPort();
    const account = await openAccount(stack, port);
    // A plan whose price lets the $5 balance buy six seconds (the least a call is admitted with),
    // with no minimum to cover, and one port, so the one call's share is all of it.
    await stack.sql(
      "INSERT OR IGNORE INTO plans " +
        "(code, name, monthly_fee_micros, ports, per_minute_rate_micros, min_billable_seconds, active, sort_order) " +
        "VALUES ('six-seconds', 'Six seconds', 0, 1, 50000000, 1, 0, 91); " +
        `UPDATE customers SET plan_code = 'six-seconds', pilot_ends_at = '2020-01-01T00:00:00.000Z' WHERE id = '${account.id}'`,
    );
    await syncLedger(account);
    const callee = uas("uas-hungup.xml", port);
    await callee.listening;
    const started = Date.now();
    const caller = await uac(stack, account.src, "uac-callee-bye.xml");
    expect(caller.code, caller.output).toBe(0);
    expect((await callee).code).toBe(0);
    expect(Date.now() - started).toBeGreaterThanOrEqual(5_900);
    const call = await endedCall(account);
    // The ledger granted the six seconds the balance buys; the node ended the call there.
    expect(call).toMatchObject({ status: "completed", hangup_by: "platform", end_reason: "credit_exhausted", billsec: 6 });
    expect((await account.call("/api/customer/balance")).balance).toBe(0);
  });

  it("diverts a controlled caller to the divert destination", async () => {
    const port = await freeUdpPort();
    const divertPort = await freeUdpPort();
    const account = await openAccount(stack, port);
    const fraudDesk = await account.call("/api/customer/destinations", {
      body: { host: "127.0.0.1", port: divertPort, label: "Fraud desk" },
    });
    await stack.sql(
      "INSERT INTO ani_controls (id, customer_id, ani, action, divert_destination_id, created_at) " +
        `VALUES ('${crypto.randomUUID()}', '${account.id}', '14155550100', 'divert', '${fraudDesk.id}', '${new Date().toISOString()}')`,
    );
    await syncLedger(account);
    const callee = uas("uas.xml", divertPort);
    await callee.listening;
    const caller = await uac(stack, account.src, "uac.xml");
    expect(caller.code, caller.output).toBe(0);
    expect((await callee).code).toBe(0);
    expect((await endedCall(account)).routed_destination_id).toBe(fraudDesk.id);
  });
});
