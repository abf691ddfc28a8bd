// An account's ledger as the call path sees it, without the Worker in front: a fresh AccountLedger
// with money and a synthetic admission state (one whitelisted /24, one default destination), and a
// SIP node that admits calls through it and reports their events, numbered per call as the node does.
import { env } from "cloudflare:test";
import { expect } from "vitest";
import type { AdmissionAccount, AdmissionState } from "../../durable-objects/call-admission.ts";
import type { AdmitCallResult, CallLimits } from "../../durable-objects/call-ledger.ts";
import { ipToHex } from "../../schema/cidr.ts";
import type { AdmitRequest, CallEvent, EndedEvent, ReportedEvent } from "../../schema/node-api.ts";

/** Pay as you go: $0.012 a minute, 200 micro-dollars a second, billed at least a minute. */
export const PAYG_RATE = 12_000;
export const MICROS_PER_SECOND = 200;

/** The production defaults (worker/env.ts). */
export const LIMITS: CallLimits = { leaseMs: 30_000, sliceSeconds: 60, capSeconds: 14_400, minGrantSeconds: 6 };
/** A slice longer than any call of a test, for the tests of the billing rules alone (no top-ups needed). */
export const ONE_SLICE: CallLimits = { ...LIMITS, sliceSeconds: 3_600 };

/** Calls come from 192.0.2.10, inside the account's whitelisted 192.0.2.0/24. */
export const SOURCE_IP = "192.0.2.10";

export function admissionState(account: Partial<AdmissionAccount> = {}): AdmissionState {
  const id = account.id ?? crypto.randomUUID();
  return {
    account: {
      id,
      status: "active",
      aiMode: null,
      ports: 10,
      ratePerMinuteMicros: PAYG_RATE,
      minBillableSeconds: 60,
      includedMinutes: null,
      pilotEndsAt: null,
      pilotMinutesLimit: null,
      ...account,
    },
    entries: [
      {
        id: crypto.randomUUID(),
        rangeStart: ipToHex("192.0.2.0")!,
        rangeEnd: ipToHex("192.0.2.255")!,
        dialPrefix: null,
        label: "Main trunk",
        destinationId: null,
      },
    ],
    destinations: [
      {
        id: crypto.randomUUID(),
        host: "default.sbc.test",
        port: 5060,
        transport: "udp",
        kind: "sip",
        provider: null,
        agentId: null,
        techPrefix: null,
        label: "Default",
        isDefault: true,
        sampleRate: 1,
        sampleMode: "all",
        processing: "full",
        transferMode: null,
        authUsername: null,
        authRealm: null,
        authPasswordEnc: null,
      },
    ],
    rules: [],
    controls: [],
  };
}

export type LedgerStub = ReturnType<typeof ledgerOf>;
export const ledgerOf = (customerId: string) => env.ACCOUNT_LEDGER.get(env.ACCOUNT_LEDGER.idFromName(customerId));

/** A fresh account ledger holding `micros` and the admission state of an account with these terms. */
export async function fundedLedger(micros: number, account: Partial<AdmissionAccount> = {}) {
  const state = admissionState(account);
  const ledger = ledgerOf(state.account.id);
  if (micros > 0) await ledger.credit({ entryId: "seed", type: "credit", amountMicros: micros, createdAt: new Date().toISOString() });
  await ledger.loadAdmissionState(state, new Date().toISOString());
  return { ledger, customerId: state.account.id, state };
}

export type Ticket = Extract<AdmitCallResult, { decision: "admit" }>;

/** The ticket of an admitted call (fails the test on a refusal). */
export function admitted(result: AdmitCallResult): Ticket {
  expect(result).toMatchObject({ decision: "admit" });
  return result as Ticket;
}

/** A SIP node carrying calls of one account: admissions, and reports numbered per call. */
export function sipNode(ledger: LedgerStub, customerId: string, options: { nodeId?: string; bootId?: string; limits?: CallLimits } = {}) {
  const nodeId = options.nodeId ?? "node-a";
  const bootId = options.bootId ?? "boot-1";
  const limits = options.limits ?? LIMITS;
  const seqs = new Map<string, number>();
  return {
    nodeId,
    bootId,
    admit: (request: Partial<AdmitRequest> = {}, now = new Date().toISOString()) =>
      ledger.admitCall({
        request: {
          node_id: nodeId,
          boot_id: bootId,
          sip_call_id: `${crypto.randomUUID()}@carrier.test`,
          src_ip: SOURCE_IP,
          ani: "+14155550100",
          dialed: "14155550123",
          origin: "sip",
          ...request,
        },
        callId: crypto.randomUUID(),
        now,
        limits,
      }),
    /** The call's next event, numbered as the node numbers it. */
    event: (callId: string, event: CallEvent): ReportedEvent => {
      const seq = (seqs.get(callId) ?? 0) + 1;
      seqs.set(callId, seq);
      return { call_id: callId, customer_id: customerId, seq, event };
    },
    report: (events: ReportedEvent[], live: string[] = [], nowMs = Date.now()) =>
      ledger.report({ nodeId, bootId, events, live, nowMs, limits }),
  };
}

export const iso = (ms: number) => new Date(ms).toISOString();

export const answered = (atMs: number): CallEvent => ({ type: "answered", at: iso(atMs) });

/** The end of a call answered at `answeredAtMs` (null: never answered) at `atMs`; a plain hangup has no end_reason, as the node sends it. */
export const ended = (answeredAtMs: number | null, atMs: number, endReason: string | null = null): EndedEvent => ({
  type: "ended",
  at: iso(atMs),
  answered_at: answeredAtMs === null ? null : iso(answeredAtMs),
  sip_code: answeredAtMs === null ? 487 : 200,
  hangup_by: "caller",
  end_reason: endReason,
});

/** The money entries the ledger holds for one call (its charge, and any reconciliation). */
export async function callEntries(ledger: LedgerStub, callId: string) {
  const { items } = await ledger.listEntries(1_000, 0);
  return items.filter((e) => e.call_id === callId);
}

/** Polls `check` until it answers something truthy, or fails after `timeoutMs`. */
export async function eventually<T>(
  check: () => Promise<T | null | undefined | false>,
  timeoutMs = 5_000,
  what = "the condition",
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`${what} did not hold within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}
