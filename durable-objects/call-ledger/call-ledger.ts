// The call ledger, the part of an account's AccountLedger that carries its calls: admission
// (from the admission state written through from D1, so no D1 read on the call path), the live
// calls with the node that carries each under a lease, credit held in slices, and the outbox
// through which call records reach D1 (the alarm sends it to the call-records queue).
import type { AdmissionRejection, CallEvent, CallReportAnswer, EndedEvent, MediaName, ReportedEvent } from "../../schema/node-api.ts";
import { normalizeNumber } from "../../schema/numbers.ts";
import {
  chooseRoute,
  controlFor,
  forcedRoute,
  entriesHolding,
  isSampled,
  newCallRecord,
  pickEntry,
  REFUSALS,
  routeFields,
  type AdmissionState,
  type CallRecord,
  type Refusal,
  type Route,
} from "./admission.ts";
import { addReservations, freeSeconds, grantSlice, poolSeconds, settle, sliceLength, type Reservation, type Terms } from "./billing.ts";
import type {
  AdmitCallInput,
  AdmitCallResult,
  AdmitOwnCallInput,
  Books,
  CallLimits,
  CallRecordMessage,
  LedgerCallCopy,
  LiveCall,
  LiveRow,
  ReportInput,
  Settled,
} from "./types.ts";
import { CallOutbox } from "./outbox.ts";
import { PlacedUsage } from "./placed-usage.ts";

export type {
  AdmitCallInput,
  AdmitCallResult,
  AdmitOwnCallInput,
  OwnCallRequest,
  Books,
  CallLimits,
  CallRecordMessage,
  LedgerCallCopy,
  LiveCall,
  PlacedCallCaps,
  PlacedCallVerdict,
  ReportInput,
} from "./types.ts";

export class CallLedger {
  private readonly sql: SqlStorage;
  private readonly books: Books;
  /** Call records on their way to D1 (the AccountLedger's alarm sends them to the call-records queue). */
  readonly outbox: CallOutbox;
  /** Today's calls and talk seconds of the calls the platform places, against their daily caps. */
  readonly placed: PlacedUsage;
  /** The admission state, parsed once per instance (undefined: not read from storage yet). */
  private state: AdmissionState | null | undefined;

  constructor(sql: SqlStorage, books: Books) {
    this.sql = sql;
    this.books = books;
    this.outbox = new CallOutbox(sql);
    this.placed = new PlacedUsage(sql);
  }

  // ---- Admission state ----

  loadState(state: AdmissionState | null, at: string): void {
    if (state === null) this.sql.exec("DELETE FROM admission_state");
    else
      this.sql.exec(
        "INSERT INTO admission_state (id, state, synced_at) VALUES (1, ?, ?) ON CONFLICT (id) DO UPDATE SET state = excluded.state, synced_at = excluded.synced_at",
        JSON.stringify(state),
        at,
      );
    this.state = state;
  }

  private admissionState(): AdmissionState | null {
    if (this.state === undefined) {
      const row = this.sql.exec<{ state: string }>("SELECT state FROM admission_state WHERE id = 1").toArray()[0];
      this.state = row ? (JSON.parse(row.state) as AdmissionState) : null;
    }
    return this.state;
  }

  // ---- Admission ----

  admit(input: AdmitCallInput): AdmitCallResult {
    const state = this.admissionState();
    if (!state) return { decision: "need_state" };
    const { request, callId, now, limits } = input;
    const entries = entriesHolding(state, request.src_ip);
    if (entries.length === 0) return { decision: "ignore" };
    if (request.boot_id) this.touchLease(request.node_id, request.boot_id, Date.parse(now), limits.leaseMs);
    const match = pickEntry(entries, normalizeNumber(request.dialed));
    const record = newCallRecord(callId, request, state.account, match?.entry ?? null, now);
    if (!match) return this.refuse(record, "no_sub_customer");
    if (state.account.status === "suspended") return this.refuse(record, "suspended");
    const control = controlFor(state, request.ani, now);
    if (control?.action === "block") return this.refuse(record, "blocked");
    const route = chooseRoute(state, match.entry, match.number, control?.divertDestinationId ?? null);
    if (!route) return this.refuse(record, "no_route");
    return this.place(state, record, route, match.number, input);
  }

  /**
   * A call the platform places itself (origin "test" or "dialer"), see OwnCallRequest: no whitelist
   * entry; the destination forced when named, else routing rules and the default by the number. A
   * port and the first credit slice are reserved, and the call charged, as for a carrier call.
   */
  admitOwnCall(input: AdmitOwnCallInput): AdmitCallResult {
    const state = this.admissionState();
    if (!state) return { decision: "need_state" };
    const { request, callId, now, limits } = input;
    if (request.boot_id) this.touchLease(request.node_id, request.boot_id, Date.parse(now), limits.leaseMs);
    const number = normalizeNumber(request.dialed);
    const record = newCallRecord(callId, { ...request, src_ip: request.src_ip ?? "" }, state.account, null, now);
    if (state.account.status === "suspended") return this.refuse(record, "suspended");
    const route = request.destination_id
      ? forcedRoute(state, request.destination_id)
      : chooseRoute(state, { destinationId: null }, number, null);
    if (!route) return this.refuse(record, "no_route");
    if (!input.caps) return this.place(state, record, route, number, input);
    // A dialer call counts as it is admitted (a test call counted as it was asked for); its length is the day's seconds left.
    const verdict = request.origin === "dialer" ? this.placed.take(now, input.caps) : this.placed.secondsLeft(now, input.caps);
    if (!verdict.allowed) return this.refuse(record, verdict.cap === "calls" ? "placed_calls_cap" : "placed_minutes_cap");
    const capSeconds = this.placed.lengthAllowed(now, input.caps, limits.capSeconds);
    return this.place(state, record, route, number, { ...input, limits: { ...limits, capSeconds } });
  }

  /** Takes a port and the first credit slice for a routed call, or refuses it (no port, no credit). */
  private place(
    state: AdmissionState,
    record: CallRecord,
    route: Route,
    number: string,
    {
      callId,
      now,
      limits,
      request,
    }: Pick<AdmitCallInput, "callId" | "now" | "limits"> & {
      request: { node_id: string; boot_id?: string | undefined };
    },
  ): AdmitCallResult {
    Object.assign(record, routeFields(route));

    const held = this.books.held();
    if (held.calls >= state.account.ports) return this.refuse(record, "no_port");
    const terms: Terms = {
      ratePerMinuteMicros: state.account.ratePerMinuteMicros,
      minBillableSeconds: state.account.minBillableSeconds,
      capSeconds: limits.capSeconds,
    };
    const free = freeSeconds(state.account, this.books.balance(), this.books.held(), now);
    const pool = poolSeconds(terms.ratePerMinuteMicros, free, this.available());
    const seconds = sliceLength(pool, state.account.ports - held.calls, limits.sliceSeconds, limits.capSeconds);
    if (seconds < Math.min(limits.minGrantSeconds, limits.capSeconds)) return this.refuse(record, "no_credit");
    const reservation = grantSlice(terms.ratePerMinuteMicros, free, seconds);

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
    this.sql.exec(
      `INSERT INTO active_calls (call_id, terms, reservation, reserved_micros, pilot_seconds, included_seconds, admitted_at,
         node_id, boot_id, status, record) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, 'ringing', ?)`,
      callId,
      JSON.stringify(terms),
      JSON.stringify(reservation),
      reservation.reservedMicros,
      reservation.pilotSeconds,
      reservation.includedSeconds,
      now,
      request.node_id,
      request.boot_id ?? null,
      JSON.stringify(record),
    );
    this.outbox.add({ type: "record", record });
    return {
      decision: "admit",
      call_id: callId,
      customer_id: state.account.id,
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

  private refuse(record: CallRecord, refusal: Refusal): AdmissionRejection {
    const { sip_code, reason } = REFUSALS[refusal];
    const rejected: CallRecord = { ...record, status: "rejected", sipCode: sip_code, endReason: reason, endedAt: record.startedAt };
    this.outbox.add({ type: "record", record: rejected });
    this.keepEnded(record.id, rejected, null);
    // Known to the ledger, so the refusal's SIP log is taken even before D1 has the record.
    this.sql.exec("INSERT OR IGNORE INTO settled_calls (call_id, result, end_reason) VALUES (?, '{}', ?)", record.id, reason);
    return { decision: "reject", sip_code, reason, call_id: record.id };
  }

  // ---- Reports from the nodes ----

  report(input: ReportInput): CallReportAnswer {
    const { nodeId, bootId, nowMs, limits } = input;
    this.touchLease(nodeId, bootId, nowMs, limits.leaseMs);
    for (const item of input.events) this.apply(item);
    if (input.live.length > 0) this.endUnlisted(nodeId, bootId, input.live, nowMs, limits.leaseMs);
    const grants: CallReportAnswer["grants"] = [];
    const ended: CallReportAnswer["ended"] = [];
    const live = new Set(input.live);
    const named = new Set([...live, ...input.events.map((e) => e.call_id)]);
    for (const callId of named) {
      const row = this.liveRow(callId);
      if (row) grants.push({ call_id: callId, granted_seconds: this.topUp(row, nowMs, limits) });
      else if (live.has(callId)) ended.push({ call_id: callId, reason: this.endReasonOf(callId) ?? "unknown_call" });
    }
    return { grants, ended };
  }

  private apply({ call_id: callId, seq, event }: ReportedEvent): void {
    const row = this.liveRow(callId);
    if (!row) return this.applyAfterEnd(callId, event);
    if (seq <= row.last_seq) return;
    this.sql.exec("UPDATE active_calls SET last_seq = ? WHERE call_id = ?", seq, callId);
    if (event.type === "answered" && row.status !== "active") {
      this.sql.exec("UPDATE active_calls SET status = 'active', answered_at = ? WHERE call_id = ?", event.at, callId);
    }
    if (event.type !== "ended") {
      this.forward(callId, event, null);
      return;
    }
    const answered = event.answered_at ? secondsBetween(event.answered_at, event.at) : 0;
    this.end(row, event, answered, event.end_reason ?? null);
  }

  /** An end reported for a call the ledger ended as node_lost (its node was cut off): charged as it really ended. */
  private applyAfterEnd(callId: string, event: CallEvent): void {
    if (event.type !== "ended") return;
    const settled = this.sql
      .exec<{ result: string; end_reason: string | null }>("SELECT result, end_reason FROM settled_calls WHERE call_id = ?", callId)
      .toArray()[0];
    if (!settled || settled.end_reason !== "node_lost") return;
    const prior = JSON.parse(settled.result) as Settled;
    if (!prior.terms || !prior.reservation || !prior.settlement) return;
    const answered = event.answered_at ? secondsBetween(event.answered_at, event.at) : 0;
    const real = settle(prior.terms, prior.reservation, answered);
    const delta = real.chargedMicros - prior.chargedMicros;
    // The reservation was released at the node_lost end: a further charge never takes the balance below zero.
    const moved = delta > 0 ? Math.min(delta, Math.max(0, this.available())) : delta;
    if (moved !== 0) {
      this.books.post({
        id: `call-adjust:${callId}`,
        type: "call",
        amountMicros: -moved,
        callId,
        description: "Call end reconciled",
        at: event.at,
      });
    }
    this.books.count(
      real.billsec - real.waivedSeconds - (prior.settlement.billsec - prior.settlement.waivedSeconds),
      real.waivedSeconds - prior.settlement.waivedSeconds,
      real.waivedMicros - prior.waivedMicros,
    );
    const result: Settled = {
      ...prior,
      billsec: real.billsec,
      chargedMicros: prior.chargedMicros + moved,
      waivedMicros: real.waivedMicros,
      settlement: real,
    };
    this.sql.exec(
      "UPDATE settled_calls SET result = ?, end_reason = ? WHERE call_id = ?",
      JSON.stringify(result),
      event.end_reason ?? "reconciled",
      callId,
    );
    const customerId = this.admissionState()?.account.id ?? "";
    const message: CallRecordMessage = {
      type: "event",
      call_id: callId,
      customer_id: customerId,
      event,
      charge: { billsec: result.billsec, charged_micros: result.chargedMicros },
      supersede: true,
    };
    this.outbox.add(message);
    // Kept lately ended with its record: the real end replaces the node_lost one there too.
    this.sql.exec("UPDATE ended_records SET end_message = ? WHERE call_id = ?", JSON.stringify(withoutLadder(message)), callId);
  }

  /** Ends a live call as `event` says: settled (see settle), its end sent to D1, its record and end kept a while (keepEnded). */
  private end(row: LiveRow, event: EndedEvent, answeredSeconds: number, endReason: string | null): void {
    const charge = this.settle(row, answeredSeconds, event.at, endReason);
    const message = this.forward(row.call_id, event, charge);
    if (row.record) this.keepEnded(row.call_id, JSON.parse(row.record) as CallRecord, message);
  }

  /** Ends a live call: the port released, the call charged on its terms, the result kept. */
  private settle(row: LiveRow, answeredSeconds: number, at: string, endReason: string | null) {
    const terms = JSON.parse(row.terms) as Terms;
    const reservation = JSON.parse(row.reservation) as Reservation;
    const bill = settle(terms, reservation, answeredSeconds);
    this.sql.exec("DELETE FROM active_calls WHERE call_id = ?", row.call_id);
    this.books.count(bill.billsec - bill.waivedSeconds, bill.waivedSeconds, bill.waivedMicros);
    const record = row.record ? (JSON.parse(row.record) as CallRecord) : null;
    this.placed.countTalk(record?.origin, answeredSeconds, at);
    if (bill.billsec > 0) {
      this.books.post({
        id: `call:${row.call_id}`,
        type: "call",
        amountMicros: -bill.chargedMicros,
        callId: row.call_id,
        description: `Call ${(record?.dialed as string | undefined) ?? ""}`.trim(),
        waivedMicros: bill.waivedMicros,
        at,
      });
    }
    const result: Settled = {
      billsec: bill.billsec,
      chargedMicros: bill.chargedMicros,
      waivedMicros: bill.waivedMicros,
      terms,
      reservation,
      settlement: bill,
    };
    this.sql.exec(
      "INSERT OR REPLACE INTO settled_calls (call_id, result, end_reason) VALUES (?, ?, ?)",
      row.call_id,
      JSON.stringify(result),
      endReason,
    );
    return { billsec: bill.billsec, charged_micros: bill.chargedMicros };
  }

  /** Tops the call's credit up by a slice when less than half a slice of talk is left. Returns the granted seconds. */
  private topUp(row: LiveRow, nowMs: number, limits: CallLimits): number {
    const reservation = JSON.parse(row.reservation) as Reservation;
    const state = this.admissionState();
    if (row.status !== "active" || !row.answered_at || !state) return reservation.maxCallSeconds;
    const talked = (nowMs - Date.parse(row.answered_at)) / 1000;
    if (reservation.maxCallSeconds - talked >= limits.sliceSeconds / 2) return reservation.maxCallSeconds;
    const terms = JSON.parse(row.terms) as Terms;
    const free = freeSeconds(state.account, this.books.balance(), this.books.held(), new Date(nowMs).toISOString());
    const pool = poolSeconds(terms.ratePerMinuteMicros, free, this.available());
    const sharers = state.account.ports - this.books.held().calls + 1;
    const seconds = sliceLength(pool, sharers, limits.sliceSeconds, terms.capSeconds - reservation.maxCallSeconds);
    if (seconds <= 0) return reservation.maxCallSeconds;
    const grown = addReservations(reservation, grantSlice(terms.ratePerMinuteMicros, free, seconds));
    this.sql.exec(
      "UPDATE active_calls SET reservation = ?, reserved_micros = ?, pilot_seconds = ?, included_seconds = ? WHERE call_id = ?",
      JSON.stringify(grown),
      grown.reservedMicros,
      grown.pilotSeconds,
      grown.includedSeconds,
      row.call_id,
    );
    return grown.maxCallSeconds;
  }

  // ---- Leases ----

  /** A sign of life from a node: its lease renewed; a new boot ends what the old one carried. */
  private touchLease(nodeId: string, bootId: string, nowMs: number, leaseMs: number): void {
    const lease = this.sql
      .exec<{ boot_id: string; renewed_at: number }>("SELECT boot_id, renewed_at FROM node_leases WHERE node_id = ?", nodeId)
      .toArray()[0];
    if (lease && lease.boot_id !== bootId) this.endNodeCalls(nodeId, lease.boot_id, lease.renewed_at);
    this.sql.exec(
      `INSERT INTO node_leases (node_id, boot_id, renewed_at, lease_ms) VALUES (?, ?, ?, ?)
       ON CONFLICT (node_id) DO UPDATE SET boot_id = excluded.boot_id, renewed_at = MAX(renewed_at, excluded.renewed_at), lease_ms = excluded.lease_ms`,
      nodeId,
      bootId,
      nowMs,
      leaseMs,
    );
  }

  /** Ends the calls of every node whose lease has lapsed, as of its last sign of life. */
  expireLeases(nowMs: number): void {
    const lapsed = this.sql
      .exec<{ node_id: string; boot_id: string; renewed_at: number }>(
        "SELECT node_id, boot_id, renewed_at FROM node_leases WHERE renewed_at + lease_ms <= ?",
        nowMs,
      )
      .toArray();
    for (const lease of lapsed) this.endNodeCalls(lease.node_id, lease.boot_id, lease.renewed_at);
  }

  /** When the next lease of a node carrying calls lapses (ms), or null. */
  nextLeaseDeadline(): number | null {
    return (
      this.sql
        .exec<{ at: number | null }>(
          `SELECT MIN(l.renewed_at + l.lease_ms) AS at FROM node_leases l
           WHERE EXISTS (SELECT 1 FROM active_calls a WHERE a.node_id = l.node_id AND a.boot_id = l.boot_id)`,
        )
        .one().at ?? null
    );
  }

  private endNodeCalls(nodeId: string, bootId: string, lastAliveMs: number): void {
    const rows = this.sql.exec<LiveRow>("SELECT * FROM active_calls WHERE node_id = ? AND boot_id = ?", nodeId, bootId).toArray();
    for (const row of rows) this.endLost(row, lastAliveMs);
  }

  /**
   * A heartbeat names every call its node carries for this account. A call of that node and boot it
   * does not name, admitted over a lease ago (time enough for its ticket to arrive), is carried by no
   * one: the node never got the ticket (its admission request failed after the ledger answered) or
   * dropped the call's end. Ended as node_lost now, its port is not held for as long as the node
   * lives; a real end reported later still replaces that end.
   */
  private endUnlisted(nodeId: string, bootId: string, live: string[], nowMs: number, graceMs: number): void {
    const listed = new Set(live);
    const admittedBefore = new Date(nowMs - graceMs).toISOString();
    const rows = this.sql
      .exec<LiveRow>("SELECT * FROM active_calls WHERE node_id = ? AND boot_id = ? AND admitted_at <= ?", nodeId, bootId, admittedBefore)
      .toArray();
    for (const row of rows) if (!listed.has(row.call_id)) this.endLost(row, nowMs);
  }

  /** Ends a call no node carries any more, as of `atMs`: charged up to then if it was answered. */
  private endLost(row: LiveRow, atMs: number): void {
    const at = new Date(atMs).toISOString();
    const answeredAt = row.status === "active" ? row.answered_at : null;
    const answered = answeredAt ? Math.max(0, secondsBetween(answeredAt, at)) : 0;
    const event: EndedEvent = {
      type: "ended",
      at,
      answered_at: answeredAt,
      sip_code: answeredAt ? 200 : 503,
      hangup_by: "platform",
      end_reason: "node_lost",
    };
    this.end(row, event, answered, "node_lost");
  }

  // ---- Reads ----

  liveCalls(): LiveCall[] {
    return this.sql
      .exec<LiveRow>("SELECT * FROM active_calls ORDER BY admitted_at DESC")
      .toArray()
      .map((row) => ({
        callId: row.call_id,
        nodeId: row.node_id,
        bootId: row.boot_id,
        status: row.status === "active" ? "active" : "ringing",
        answeredAt: row.answered_at,
        grantedSeconds: (JSON.parse(row.reservation) as Reservation).maxCallSeconds,
        record: row.record ? (JSON.parse(row.record) as CallRecord) : ({ id: row.call_id } as CallRecord),
      }));
  }

  /**
   * What the ledger knows of a call it carries or ended lately (LedgerCallCopy), or null: a live
   * call's record and its answer; an ended one's record and its end, kept ENDED_RECORDS_KEEP_MS.
   */
  copyOf(callId: string): LedgerCallCopy | null {
    const row = this.liveRow(callId);
    if (row?.record) {
      const record = JSON.parse(row.record) as CallRecord;
      const messages: CallRecordMessage[] = [{ type: "record", record }];
      const answered = row.status === "active" && row.answered_at;
      if (answered) messages.push(this.message(callId, { type: "answered", at: row.answered_at! }, null));
      return { state: answered ? "active" : "ringing", messages };
    }
    if (row) return null;
    const ended = this.sql
      .exec<{ record: string; end_message: string | null }>("SELECT record, end_message FROM ended_records WHERE call_id = ?", callId)
      .toArray()[0];
    if (!ended) return null;
    const messages: CallRecordMessage[] = [{ type: "record", record: JSON.parse(ended.record) as CallRecord }];
    if (ended.end_message) messages.push(JSON.parse(ended.end_message) as CallRecordMessage);
    return { state: "ended", messages };
  }

  /** Forgets the records of calls ended over ENDED_RECORDS_KEEP_MS ago (D1 has had them long since). */
  pruneEnded(nowMs: number): void {
    this.sql.exec("DELETE FROM ended_records WHERE ended_ms < ?", nowMs - ENDED_RECORDS_KEEP_MS);
  }

  /** Whether this ledger admitted or refused the call (its record may not be in D1 yet). */
  knows(callId: string): boolean {
    return this.liveRow(callId) !== undefined || this.endReasonOf(callId) !== undefined;
  }

  // ---- Outbox ----

  noteMedia(callId: string, name: MediaName, key: string): void {
    this.outbox.add({ type: "media", call_id: callId, name, key });
  }

  private forward(callId: string, event: CallEvent, charge: { billsec: number; charged_micros: number } | null): CallRecordMessage {
    const message = this.message(callId, event, charge);
    this.outbox.add(message);
    return message;
  }

  private message(callId: string, event: CallEvent, charge: { billsec: number; charged_micros: number } | null): CallRecordMessage {
    return { type: "event", call_id: callId, customer_id: this.admissionState()?.account.id ?? "", event, charge };
  }

  /**
   * Keeps an ended call's record and its end (without the SIP ladder, which the queue brings) for
   * ENDED_RECORDS_KEEP_MS: the API reads the call from here while they are on their way to D1.
   */
  private keepEnded(callId: string, record: CallRecord, end: CallRecordMessage | null): void {
    this.sql.exec(
      "INSERT OR REPLACE INTO ended_records (call_id, record, end_message, ended_ms) VALUES (?, ?, ?, ?)",
      callId,
      JSON.stringify(record),
      end ? JSON.stringify(withoutLadder(end)) : null,
      Date.now(),
    );
  }

  // ---- Helpers ----

  private liveRow(callId: string): LiveRow | undefined {
    return this.sql.exec<LiveRow>("SELECT * FROM active_calls WHERE call_id = ?", callId).toArray()[0];
  }

  private endReasonOf(callId: string): string | undefined {
    const row = this.sql.exec<{ end_reason: string | null }>("SELECT end_reason FROM settled_calls WHERE call_id = ?", callId).toArray()[0];
    return row ? (row.end_reason ?? "ended") : undefined;
  }

  private available(): number {
    return this.books.balance().balance_micros - this.books.held().reserved_micros;
  }
}

/**
 * How long an ended call's record stays in the ledger after the end: the call-records queue delivers
 * in seconds, minutes when D1 or the queue is behind; past this the API has only D1 for the call.
 */
export const ENDED_RECORDS_KEEP_MS = 15 * 60_000;

/** An end message without its SIP ladder (the bulk of it), for keeping. */
function withoutLadder(message: CallRecordMessage): CallRecordMessage {
  if (message.type !== "event" || message.event.type !== "ended") return message;
  const { ladder: _ladder, ...event } = message.event;
  return { ...message, event };
}

const secondsBetween = (from: string, to: string): number => Math.max(0, (Date.parse(to) - Date.parse(from)) / 1000);
