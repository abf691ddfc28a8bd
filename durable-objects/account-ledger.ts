// AccountLedger: one instance per account (idFromName(account key)), the only writer of that
// account's money and concurrency. Balance, ports in use, cycle minutes, pilot use, active
// call reservations and ledger entries live in this object's own SQLite storage; every method
// runs alone, so no two requests can both take the last port or spend the last dollar.
// Outcomes cross the RPC boundary as values ({ok: false, reason}), never as exceptions.
// Its parts: the money (ledger-books.ts), the calls (call-ledger/), the storage layout
// (ledger-migrations.ts) and the case and ticket numbers (sequences.ts); this file is the RPC
// surface, one transaction per change, and the alarm that sends the call records on.
import { DurableObject } from "cloudflare:workers";
import type { CallReportAnswer, MediaName } from "../schema/node-api.ts";
import type { AdmissionState } from "./call-ledger/admission.ts";
import {
  CallLedger,
  type AdmitCallInput,
  type AdmitCallResult,
  type AdmitOwnCallInput,
  type CallRecordMessage,
  type LedgerCallCopy,
  type LiveCall,
  type PlacedCallCaps,
  type PlacedCallVerdict,
  type ReportInput,
  type RuleCounts,
} from "./call-ledger/call-ledger.ts";
import {
  LedgerBooks,
  type CreditResult,
  type DebitResult,
  type LedgerEntry,
  type LedgerSummary,
  type MoneyInput,
  type RefundInput,
  type RefundResult,
} from "./ledger-books.ts";
import { LEDGER_MIGRATIONS, migrate } from "./ledger-migrations.ts";
import { nextNumber } from "./sequences.ts";

export type { CreditResult, DebitResult, LedgerEntry, LedgerSummary, MoneyInput, RefundInput, RefundResult } from "./ledger-books.ts";

/** The queue the outbox is flushed to (worker/queues/call-records.ts writes it to D1). */
type LedgerEnv = { CALL_RECORDS_QUEUE?: Queue<CallRecordMessage> };

/** Messages sent to the queue at once: the queue takes 100 a batch and 256 KB in all. */
const FLUSH_MESSAGES = 100;
const FLUSH_BYTES = 200_000;
/** How long a failed flush waits before the alarm tries again. */
const FLUSH_RETRY_MS = 1_000;
/** New outbox messages wait this long for others, so a busy account flushes a batch, not each call. */
const FLUSH_DELAY_MS = 100;

export class AccountLedger extends DurableObject {
  private readonly books: LedgerBooks;
  private readonly calls: CallLedger;
  /** When the alarm is set for, as this instance last set or read it (undefined: not known yet). */
  private alarmAt: number | null | undefined;

  constructor(ctx: DurableObjectState, env: Cloudflare.Env) {
    super(ctx, env);
    // Synchronous, so no request reaches the object before its storage is at the current version.
    migrate(ctx.storage, LEDGER_MIGRATIONS);
    this.books = new LedgerBooks(ctx.storage.sql, () => this.calls.held());
    this.calls = new CallLedger(ctx.storage.sql, this.books);
  }

  // ---- The call ledger (call-ledger/call-ledger.ts) ----

  /** The account's admission state, written through by the Worker after every change in D1 (null: the account is gone). */
  loadAdmissionState(state: AdmissionState | null, at: string): void {
    this.write(() => this.calls.loadState(state, at));
  }

  /** Admits or refuses a call from the admission state alone; the record goes out through the outbox. */
  async admitCall(input: AdmitCallInput): Promise<AdmitCallResult> {
    const result = this.write(() => this.calls.admit(input));
    await this.schedule();
    return result;
  }

  /** Admits a call the platform places itself (test call, web dialer): CallLedger.admitOwnCall. */
  async admitOwnCall(input: AdmitOwnCallInput): Promise<AdmitCallResult> {
    const result = this.write(() => this.calls.admitOwnCall(input));
    await this.schedule();
    return result;
  }

  /** Counts a call the platform is asked to place (a test call, as it is created) against the day's caps. */
  takePlacedCall(input: { now: string; caps: PlacedCallCaps }): PlacedCallVerdict {
    return this.write(() => this.calls.placed.take(input.now, input.caps));
  }

  /** A node's batch of call events and its heartbeat: applied once each, answered with grants. */
  async report(input: ReportInput): Promise<CallReportAnswer> {
    const answer = this.write(() => this.calls.report(input));
    await this.schedule();
    return answer;
  }

  liveCalls(): LiveCall[] {
    return this.calls.liveCalls();
  }

  liveCall(callId: string): LiveCall | null {
    return this.calls.liveCalls().find((call) => call.callId === callId) ?? null;
  }

  /** A file of the call stored before its record reached D1: what it changes follows the record through the outbox. */
  async noteMedia(input: { callId: string; name: MediaName; key: string }): Promise<void> {
    this.write(() => this.calls.noteMedia(input.callId, input.name, input.key));
    await this.schedule();
  }

  /** How many calls each screening rule refused, diverted and flagged (GET /customer/screening/stats). */
  screeningStats(): RuleCounts[] {
    return this.calls.screeningStats();
  }

  knowsCall(callId: string): boolean {
    return this.calls.knows(callId);
  }

  /** What the ledger knows of a call it carries or ended lately, as the messages that bring D1 to it (null: nothing). */
  callCopy(callId: string): LedgerCallCopy | null {
    return this.calls.copyOf(callId);
  }

  /** Ends the calls of nodes whose lease lapsed, and sends the outbox to the call-records queue. */
  override async alarm(): Promise<void> {
    // The alarm that fires is spent: the next one is set by schedule() below.
    this.alarmAt = null;
    this.write(() => {
      this.calls.expireLeases(Date.now());
      this.calls.pruneEnded(Date.now());
    });
    const flushed = await this.flush();
    await this.schedule(flushed ? undefined : Date.now() + FLUSH_RETRY_MS);
  }

  /** Sends what waits in the outbox, oldest first; false when the queue refused. */
  private async flush(): Promise<boolean> {
    const queue = (this.env as LedgerEnv).CALL_RECORDS_QUEUE;
    if (!queue) return true;
    for (let rows = this.calls.outbox.oldest(FLUSH_MESSAGES); rows.length > 0; rows = this.calls.outbox.oldest(FLUSH_MESSAGES)) {
      const batch: typeof rows = [];
      let bytes = 0;
      for (const row of rows) {
        if (batch.length > 0 && bytes + row.body.length > FLUSH_BYTES) break;
        batch.push(row);
        bytes += row.body.length;
      }
      try {
        await queue.sendBatch(batch.map((row) => ({ body: JSON.parse(row.body) as CallRecordMessage, contentType: "json" })));
      } catch (err) {
        console.error("call records: the queue refused a batch, retrying", err instanceof Error ? err.message : String(err));
        return false;
      }
      this.calls.outbox.sent(batch[batch.length - 1]!.seq);
    }
    return true;
  }

  /** The alarm at the earliest of: shortly when the outbox holds messages, a retry, the next lease to lapse. */
  private async schedule(retryAt?: number): Promise<void> {
    const candidates = [
      retryAt,
      this.calls.outbox.hasMessages() && retryAt === undefined ? Date.now() + FLUSH_DELAY_MS : undefined,
      this.calls.nextLeaseDeadline() ?? undefined,
    ];
    const next = Math.min(...candidates.filter((t): t is number => t !== undefined));
    if (!Number.isFinite(next)) return;
    if (this.alarmAt === undefined) this.alarmAt = await this.ctx.storage.getAlarm();
    if (this.alarmAt !== null && this.alarmAt <= next) return;
    this.alarmAt = next;
    await this.ctx.storage.setAlarm(next);
  }

  // ---- The money (ledger-books.ts) ----

  summary(): LedgerSummary {
    return this.books.summary();
  }

  /** Adds money (welcome credit, top-up, refund). Idempotent by entry id. */
  credit(input: MoneyInput): CreditResult {
    return this.write(() => this.books.credit(input));
  }

  /** Takes money (analysis fee, plan fee, exchange purchase) only if the available balance covers it. Idempotent by entry id. */
  debit(input: MoneyInput): DebitResult {
    return this.write(() => this.books.debit(input));
  }

  /** Gives back exactly what a debit took, once, and nothing when that debit never happened: LedgerBooks.refund. */
  refund(input: RefundInput): RefundResult {
    return this.write(() => this.books.refund(input));
  }

  /** A new billing cycle: included minutes start again. */
  startCycle(): void {
    this.books.startCycle();
  }

  /** Newest first. */
  listEntries(limit: number, offset: number): { total: number; items: LedgerEntry[] } {
    return this.books.listEntries(limit, offset);
  }

  /** The account's next case or ticket number: each handed out once, in order (sequences.ts). */
  nextNumber(sequence: "case" | "ticket"): number {
    return this.write(() => nextNumber(this.ctx.storage.sql, sequence));
  }

  /** One change to storage: everything `change` writes commits together, or nothing does if it throws. */
  private write<T>(change: () => T): T {
    return this.ctx.storage.transactionSync(change);
  }
}
