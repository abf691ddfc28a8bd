// The call ledger, the part of an account's AccountLedger that carries its calls: admission
// (admitter.ts, from the admission state written through from D1, so no D1 read on the call path),
// the live calls (live-calls.ts) with the node that carries each under a lease (node-leases.ts),
// credit held in slices (credit.ts), their ends charged (settlement.ts) and kept a while
// (ended-calls.ts), the nodes' reports (node-reports.ts), and the outbox through which call
// records reach D1 (outbox.ts; the AccountLedger's alarm sends it to the call-records queue).
// This file holds the admission state and wires the parts; the Worker's types come from here.
import type { CallReportAnswer, MediaName } from "../../schema/node-api.ts";
import type { AdmissionState } from "./admission.ts";
import { CallAdmitter } from "./admitter.ts";
import { CallCredit } from "./credit.ts";
import { EndedCalls } from "./ended-calls.ts";
import { LiveCallTable, recordOf } from "./live-calls.ts";
import { NodeLeases } from "./node-leases.ts";
import { NodeReports } from "./node-reports.ts";
import { CallOutbox } from "./outbox.ts";
import { PlacedUsage } from "./placed-usage.ts";
import { CallScreening } from "./screening/screen.ts";
import type { RuleCounts } from "./screening/tally.ts";
import { CallSettlement } from "./settlement.ts";
import type {
  AdmitCallInput,
  AdmitCallResult,
  AdmitOwnCallInput,
  Books,
  CallRecordMessage,
  Held,
  LedgerCallCopy,
  LiveCall,
  ReportInput,
} from "./types.ts";

export type {
  AdmitCallInput,
  AdmitCallResult,
  AdmitOwnCallInput,
  OwnCallRequest,
  Books,
  CallLimits,
  CallRecordMessage,
  Held,
  LedgerCallCopy,
  LiveCall,
  PlacedCallCaps,
  PlacedCallVerdict,
  Posting,
  ReportInput,
  ScreeningBreachMessage,
} from "./types.ts";
export type { RuleCounts } from "./screening/tally.ts";

export class CallLedger {
  private readonly sql: SqlStorage;
  /** Call records on their way to D1 (the AccountLedger's alarm sends them to the call-records queue). */
  readonly outbox: CallOutbox;
  /** Today's calls and talk seconds of the calls the platform places, against their daily caps. */
  readonly placed: PlacedUsage;
  private readonly calls: LiveCallTable;
  private readonly ended: EndedCalls;
  private readonly leases: NodeLeases;
  private readonly admitter: CallAdmitter;
  private readonly reports: NodeReports;
  private readonly screening: CallScreening;
  /** The admission state, parsed once per instance (undefined: not read from storage yet). */
  private state: AdmissionState | null | undefined;

  constructor(sql: SqlStorage, books: Books) {
    this.sql = sql;
    const state = () => this.admissionState();
    this.outbox = new CallOutbox(sql, () => state()?.account.id ?? "");
    this.placed = new PlacedUsage(sql);
    this.calls = new LiveCallTable(sql);
    this.ended = new EndedCalls(sql);
    const credit = new CallCredit(books, this.calls);
    const parts = { calls: this.calls, ended: this.ended, outbox: this.outbox, placed: this.placed };
    this.screening = new CallScreening({ sql, outbox: this.outbox, liveCalls: () => this.calls.list() });
    const screening = this.screening;
    const settlement = new CallSettlement({ ...parts, books, available: () => credit.available(), state, screening });
    this.leases = new NodeLeases(sql, this.calls, settlement);
    this.admitter = new CallAdmitter({ ...parts, state, leases: this.leases, credit, screening });
    this.reports = new NodeReports({ ...parts, state, leases: this.leases, credit, settlement });
  }

  /** The account's admission state, written through by the Worker (null: the account is gone). */
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

  admit(input: AdmitCallInput): AdmitCallResult {
    return this.admitter.admit(input);
  }

  /** A call the platform places itself: CallAdmitter.admitOwnCall. */
  admitOwnCall(input: AdmitOwnCallInput): AdmitCallResult {
    return this.admitter.admitOwnCall(input);
  }

  report(input: ReportInput): CallReportAnswer {
    return this.reports.report(input);
  }

  /** Ends the calls of every node whose lease has lapsed, as of its last sign of life. */
  expireLeases(nowMs: number): void {
    this.leases.expire(nowMs);
  }

  /** When the next lease of a node carrying calls lapses (ms), or null. */
  nextLeaseDeadline(): number | null {
    return this.leases.nextDeadline();
  }

  /** What the live calls hold: ports in use, money set aside, free seconds. */
  held(): Held {
    return this.calls.held();
  }

  liveCalls(): LiveCall[] {
    return this.calls.list();
  }

  /**
   * What the ledger knows of a call it carries or ended lately (LedgerCallCopy), or null: a live
   * call's record and its answer; an ended one's record and its end, kept ENDED_RECORDS_KEEP_MS.
   */
  copyOf(callId: string): LedgerCallCopy | null {
    const row = this.calls.row(callId);
    if (!row) return this.ended.copyOf(callId);
    const record = recordOf(row);
    if (!record) return null;
    const messages: CallRecordMessage[] = [{ type: "record", record }];
    const answeredAt = row.status === "active" ? row.answered_at : null;
    if (answeredAt) messages.push(this.outbox.eventMessage(callId, { type: "answered", at: answeredAt }, null));
    return { state: answeredAt ? "active" : "ringing", messages };
  }

  /** Forgets the records of calls ended over ENDED_RECORDS_KEEP_MS ago (D1 has had them long since). */
  pruneEnded(nowMs: number): void {
    this.ended.prune(nowMs);
  }

  /** Whether this ledger admitted or refused the call (its record may not be in D1 yet). */
  knows(callId: string): boolean {
    return this.calls.row(callId) !== undefined || this.ended.endReasonOf(callId) !== undefined;
  }

  /** How many calls each screening rule refused, diverted and flagged. */
  screeningStats(): RuleCounts[] {
    return this.screening.stats();
  }

  /** A file of the call stored in R2 before its record reached D1. */
  noteMedia(callId: string, name: MediaName, key: string): void {
    this.outbox.add({ type: "media", call_id: callId, name, key });
  }
}
