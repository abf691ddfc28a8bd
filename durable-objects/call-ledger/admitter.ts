// A call's admission in the ledger: decided from the admission state alone (admission.ts, no D1
// read on the call path), then placed (a port and the first slice of credit taken, the live call
// written) or refused, its record sent to D1 through the outbox either way.
import type { AdmissionRejection } from "../../schema/node-api.ts";
import { normalizeNumber } from "../../schema/numbers.ts";
import {
  chooseRoute,
  controlFor,
  entriesHolding,
  forcedRoute,
  identityFields,
  isSampled,
  newCallRecord,
  pickEntry,
  REFUSALS,
  routeFields,
  screeningRefusal,
  type AdmissionState,
  type CallRecord,
  type Route,
} from "./admission.ts";
import type { Terms } from "./billing.ts";
import type { CallCredit } from "./credit.ts";
import type { EndedCalls } from "./ended-calls.ts";
import type { LiveCallTable } from "./live-calls.ts";
import type { NodeLeases } from "./node-leases.ts";
import type { CallOutbox } from "./outbox.ts";
import type { PlacedUsage } from "./placed-usage.ts";
import type { CallScreening } from "./screening/screen.ts";
import type { AdmitCallInput, AdmitCallResult, AdmitOwnCallInput } from "./types.ts";

export type AdmitterParts = {
  /** The admission state the Worker wrote through (null: none yet, or the account is gone). */
  state: () => AdmissionState | null;
  leases: Pick<NodeLeases, "touch">;
  calls: Pick<LiveCallTable, "held" | "insert">;
  credit: Pick<CallCredit, "firstSlice">;
  ended: Pick<EndedCalls, "keep" | "noteRefused">;
  outbox: Pick<CallOutbox, "add">;
  placed: Pick<PlacedUsage, "take" | "secondsLeft" | "lengthAllowed">;
  screening: Pick<CallScreening, "screen" | "admitted">;
};

/** What placing a call needs of its admission request. */
type Placing = Pick<AdmitCallInput, "callId" | "now" | "limits"> & { request: { node_id: string; boot_id?: string | undefined } };

export class CallAdmitter {
  private readonly parts: AdmitterParts;

  constructor(parts: AdmitterParts) {
    this.parts = parts;
  }

  /**
   * A call from a carrier: its source on the account's whitelist, then the caller's control, then
   * the screening (screening/screen.ts), then a route. A control's divert stands over a screening
   * rule's; a screening refusal over both.
   */
  admit(input: AdmitCallInput): AdmitCallResult {
    const state = this.parts.state();
    if (!state) return { decision: "need_state" };
    const { request, callId, now, limits } = input;
    const entries = entriesHolding(state, request.src_ip);
    if (entries.length === 0) return { decision: "ignore" };
    if (request.boot_id) this.parts.leases.touch(request.node_id, request.boot_id, Date.parse(now), limits.leaseMs);
    const match = pickEntry(entries, normalizeNumber(request.dialed));
    const record = newCallRecord(callId, request, state.account, match?.entry ?? null, now);
    Object.assign(record, identityFields(request.identity ?? null));
    if (!match) return this.refuse(record, REFUSALS.no_sub_customer);
    if (state.account.status === "suspended") return this.refuse(record, REFUSALS.suspended);
    const control = controlFor(state, request.ani, now);
    if (control?.action === "block") return this.refuse(record, REFUSALS.blocked);
    const screened = this.parts.screening.screen(state, { callId, request, number: match.number, now });
    record.screening = screened.result;
    if (screened.result.action === "refuse") return this.refuse(record, screeningRefusal(screened.result.rule!));
    const route = chooseRoute(state, match.entry, match.number, control?.divertDestinationId ?? screened.divertTo);
    if (!route) return this.refuse(record, REFUSALS.no_route);
    const answer = this.place(state, record, route, match.number, input);
    if (answer.decision === "admit") this.parts.screening.admitted(state, callId, screened);
    return answer;
  }

  /**
   * A call the platform places itself (origin "test" or "dialer"), see OwnCallRequest: no whitelist
   * entry; the destination forced when named, else routing rules and the default by the number. A
   * port and the first credit slice are reserved, and the call charged, as for a carrier call.
   */
  admitOwnCall(input: AdmitOwnCallInput): AdmitCallResult {
    const state = this.parts.state();
    if (!state) return { decision: "need_state" };
    const { request, callId, now, limits } = input;
    if (request.boot_id) this.parts.leases.touch(request.node_id, request.boot_id, Date.parse(now), limits.leaseMs);
    const number = normalizeNumber(request.dialed);
    const record = newCallRecord(callId, { ...request, src_ip: request.src_ip ?? "" }, state.account, null, now);
    if (state.account.status === "suspended") return this.refuse(record, REFUSALS.suspended);
    const route = request.destination_id
      ? forcedRoute(state, request.destination_id)
      : chooseRoute(state, { destinationId: null }, number, null);
    if (!route) return this.refuse(record, REFUSALS.no_route);
    if (!input.caps) return this.place(state, record, route, number, input);
    const { placed } = this.parts;
    // A dialer call counts as it is admitted (a test call counted as it was asked for); its length is the day's seconds left.
    const verdict = request.origin === "dialer" ? placed.take(now, input.caps) : placed.secondsLeft(now, input.caps);
    if (!verdict.allowed) return this.refuse(record, REFUSALS[verdict.cap === "calls" ? "placed_calls_cap" : "placed_minutes_cap"]);
    const capSeconds = placed.lengthAllowed(now, input.caps, limits.capSeconds);
    return this.place(state, record, route, number, { ...input, limits: { ...limits, capSeconds } });
  }

  /** Takes a port and the first credit slice for a routed call, or refuses it (no port, no credit). */
  private place(state: AdmissionState, record: CallRecord, route: Route, number: string, placing: Placing): AdmitCallResult {
    const { callId, now, limits, request } = placing;
    const { account } = state;
    Object.assign(record, routeFields(route));
    if (this.parts.calls.held().calls >= account.ports) return this.refuse(record, REFUSALS.no_port);
    const terms: Terms = {
      ratePerMinuteMicros: account.ratePerMinuteMicros,
      minBillableSeconds: account.minBillableSeconds,
      capSeconds: limits.capSeconds,
    };
    const reservation = this.parts.credit.firstSlice(account, terms, limits, now);
    if (!reservation) return this.refuse(record, REFUSALS.no_credit);

    const destination = route.destination;
    const sampled = isSampled(destination.sampleRate);
    // sample_mode record: the sample is what gets recorded at all; the other calls are relayed only.
    const processing = !sampled && destination.sampleMode === "record" ? "relay_only" : destination.processing;
    Object.assign(record, {
      status: "ringing",
      maxCallSeconds: limits.capSeconds,
      rateAppliedMicros: terms.ratePerMinuteMicros,
      processing,
      sampled,
      transcriptStatus: "pending",
      analysisStatus: "pending",
    });
    this.parts.calls.insert({
      callId,
      terms,
      reservation,
      admittedAt: now,
      nodeId: request.node_id,
      bootId: request.boot_id ?? null,
      record,
    });
    this.parts.outbox.add({ type: "record", record });
    return {
      decision: "admit",
      call_id: callId,
      customer_id: account.id,
      dialed: `${destination.techPrefix ?? ""}${number}`,
      ani: (record.ani as string | null) ?? null,
      destination,
      max_call_seconds: limits.capSeconds,
      granted_seconds: reservation.maxCallSeconds,
      processing,
      sampled,
      sub_customer: (record.subCustomer as string | null) ?? null,
      route: route.kind,
    };
  }

  private refuse(record: CallRecord, refusal: { sip_code: number; reason: string }): AdmissionRejection {
    const { sip_code, reason } = refusal;
    const rejected: CallRecord = { ...record, status: "rejected", sipCode: sip_code, endReason: reason, endedAt: record.startedAt };
    this.parts.outbox.add({ type: "record", record: rejected });
    this.parts.ended.keep(record.id, rejected, null);
    this.parts.ended.noteRefused(record.id, reason);
    return { decision: "reject", sip_code, reason, call_id: record.id };
  }
}
