// The node's call events on their way to the Worker's call ledger (POST /internal/calls/report):
// numbered per call from 1, sent in batches (at 100 events, or 20 ms after the first one waiting),
// one batch at a time so each call's events arrive in order, a failed batch sent again with the
// same batch id until the Worker takes it. The end of a call is never lost: `ended` events are
// written to a journal in the node's spool before they are sent and stay there until acknowledged,
// and a node started again sends what its previous run left there first, under its own new boot id
// (the ledger ends the old boot's calls as node_lost, then charges each journaled end as it really
// happened; a report under the old boot id would look like that boot coming back).
// Every NODE_HEARTBEAT_SECONDS the next batch also carries every call the node holds (`live`),
// which renews the node's lease; answers carry credit grants and calls the ledger has ended.
import { randomUUID } from "node:crypto";
import { appendFileSync, existsSync, mkdirSync, readFileSync, renameSync, truncateSync, writeFileSync } from "node:fs";
import { dirname } from "node:path";
import { ReportedEvent, type CallEvent, type CallReport, type CallReportAnswer } from "../../schema/node-api.ts";
import { WorkerApiError, type WorkerClient } from "./worker-client.ts";

export type LiveCall = { call_id: string; customer_id: string };

export type CallReporterOptions = {
  worker: Pick<WorkerClient, "report">;
  nodeId: string;
  bootId: string;
  /** The journal of unacknowledged ends, in the node's spool. */
  journalPath: string;
  heartbeatMs: number;
  /** Every call the node carries now, for heartbeats. */
  live: () => LiveCall[];
  /** What the Worker answered a batch: grants to apply, calls to hang up. */
  onAnswer: (answer: CallReportAnswer) => void;
  log: (message: string) => void;
  /** A batch leaves when this many events wait... */
  batchEvents?: number;
  /** ...or this long after the first of them. */
  windowMs?: number;
  /** The most bytes of events one report carries (the Worker refuses larger bodies with 413). */
  maxBatchBytes?: number;
  /** The first retry's delay; doubled at each failure up to maxBackoffMs. */
  backoffMs?: number;
  maxBackoffMs?: number;
};

type Pending = { event: ReportedEvent; journaled: boolean; bytes: number; slimmed?: boolean };

/** The most events one report may carry (schema/node-api.ts): a backlog drains in batches this large. */
const MAX_REPORT_EVENTS = 1_000;
/** Within the Worker's request body limit (64 KiB), with room for the envelope. */
const MAX_BATCH_BYTES = 60 * 1024;
/** What post() answers for a report the Worker found too large (413): it is sent again smaller. */
const TOO_LARGE = Symbol("too large");

export class CallReporter {
  private readonly options: Required<CallReporterOptions>;
  private readonly journal: CallJournal;
  private readonly seqs = new Map<string, number>();
  private pending: Pending[] = [];
  /** When the oldest waiting event was queued: the window runs from it. */
  private firstPendingAt: number | null = null;
  private windowTimer: ReturnType<typeof setTimeout> | null = null;
  private inFlight = false;
  private heartbeatDue = true;
  private heartbeat: ReturnType<typeof setInterval> | undefined;
  /** When the regular heartbeat last came due. */
  private lastBeatAt = 0;
  /** An extra heartbeat asked for by a call whose covered time runs out before the next regular one. */
  private early: { at: number; timer: ReturnType<typeof setTimeout> } | null = null;
  private retry: { timer: ReturnType<typeof setTimeout>; wake: () => void } | null = null;
  private flushing = 0;
  /** Events a batch may carry now: halved by a 413, grown back by each batch taken. */
  private batchLimit = MAX_REPORT_EVENTS;
  private stopped = false;
  private idleWaiters: Array<() => void> = [];

  /** Reads the journal: what a previous run left there is queued first. */
  constructor(options: CallReporterOptions) {
    this.options = { batchEvents: 100, windowMs: 20, maxBatchBytes: MAX_BATCH_BYTES, backoffMs: 100, maxBackoffMs: 5_000, ...options };
    this.journal = new CallJournal(options.journalPath, options.log);
    const left = this.journal.load();
    if (left.length > 0) options.log(`re-sending ${left.length} call end(s) a previous run had not had acknowledged`);
    for (const { event } of left) this.pending.push({ event, journaled: true, bytes: sizeOf(event) });
    if (left.length > 0) this.firstPendingAt = 0;
  }

  /** Starts sending: the previous run's ends first, then a heartbeat, and one every heartbeatMs. */
  start(): void {
    if (this.heartbeat || this.stopped) return;
    this.lastBeatAt = Date.now();
    this.heartbeat = setInterval(() => {
      this.lastBeatAt = Date.now();
      this.heartbeatDue = true;
      this.schedule();
    }, this.options.heartbeatMs);
    this.heartbeat.unref();
    this.schedule();
  }

  /** Queues one event of a call; the first event of a call is seq 1. An `ended` is journaled first. */
  report(callId: string, customerId: string, event: CallEvent): void {
    if (this.stopped) return;
    const seq = (this.seqs.get(callId) ?? 0) + 1;
    if (event.type === "ended") this.seqs.delete(callId);
    else this.seqs.set(callId, seq);
    const reported = { call_id: callId, customer_id: customerId, seq, event };
    const item: Pending = { event: reported, journaled: false, bytes: sizeOf(reported) };
    if (event.type === "ended") {
      this.journal.append({ boot: this.options.bootId, event: reported });
      item.journaled = true;
    }
    if (this.pending.length === 0) this.firstPendingAt = Date.now();
    this.pending.push(item);
    this.schedule();
  }

  /**
   * A call's covered talk time runs out at `atMs`: a heartbeat (which lets the ledger top its
   * credit up) goes by then, earlier than the regular one when that would come too late.
   */
  renewBy(atMs: number): void {
    if (this.stopped || atMs >= this.lastBeatAt + this.options.heartbeatMs) return;
    if (this.early && this.early.at <= atMs) return;
    if (this.early) clearTimeout(this.early.timer);
    const timer = setTimeout(
      () => {
        this.early = null;
        this.heartbeatDue = true;
        this.schedule();
      },
      Math.max(0, atMs - Date.now()),
    );
    timer.unref();
    this.early = { at: atMs, timer };
  }

  /** Events queued or in flight. */
  get backlog(): number {
    return this.pending.length;
  }

  /**
   * Sends everything queued now (no window), and waits until the Worker has taken it or
   * `timeoutMs` passed; true when nothing is left to send.
   */
  async flush(timeoutMs: number): Promise<boolean> {
    this.flushing++;
    try {
      this.schedule();
      if (this.idle()) return true;
      let timer: ReturnType<typeof setTimeout> | undefined;
      const timedOut = new Promise<void>((resolve) => (timer = setTimeout(resolve, timeoutMs)));
      const done = new Promise<void>((resolve) => this.idleWaiters.push(resolve));
      await Promise.race([done, timedOut]);
      clearTimeout(timer);
      return this.idle();
    } finally {
      this.flushing--;
    }
  }

  /** Stops sending (what is unsent of the ends stays in the journal for the next start). */
  stop(): void {
    this.stopped = true;
    clearInterval(this.heartbeat);
    if (this.early) clearTimeout(this.early.timer);
    if (this.windowTimer) clearTimeout(this.windowTimer);
    this.windowTimer = null;
    if (this.retry) {
      clearTimeout(this.retry.timer);
      this.retry.wake();
    }
    this.wakeIdle();
  }

  /** Nothing to send (a heartbeat alone may be in flight: a flush does not wait for it). */
  private idle(): boolean {
    return this.pending.length === 0;
  }

  private wakeIdle(): void {
    const waiters = this.idleWaiters;
    this.idleWaiters = [];
    for (const wake of waiters) wake();
  }

  /** Sends the next batch when one is due and none is in flight; else makes sure the window's timer runs. */
  private schedule(): void {
    if (this.stopped || this.inFlight || !this.heartbeat) return;
    if (this.pending.length === 0 && !this.heartbeatDue) return this.wakeIdle();
    const now = Date.now();
    const windowEnds = (this.firstPendingAt ?? now) + this.options.windowMs;
    const due = this.heartbeatDue || this.flushing > 0 || this.pending.length >= this.options.batchEvents || now >= windowEnds;
    if (!due) {
      this.windowTimer ??= setTimeout(() => {
        this.windowTimer = null;
        this.schedule();
      }, windowEnds - now);
      return;
    }
    if (this.windowTimer) clearTimeout(this.windowTimer);
    this.windowTimer = null;
    this.send();
  }

  private send(): void {
    let count = 0;
    let bytes = 0;
    while (count < this.pending.length && count < this.batchLimit) {
      bytes += this.pending[count]!.bytes;
      if (count > 0 && bytes > this.options.maxBatchBytes) break;
      count++;
    }
    const items = this.pending.slice(0, count);
    const withLive = this.heartbeatDue;
    if (withLive) this.heartbeatDue = false;
    const report: CallReport = {
      node_id: this.options.nodeId,
      boot_id: this.options.bootId,
      batch_id: randomUUID(),
      events: items.map((item) => item.event),
      ...(withLive ? { live: this.options.live() } : {}),
    };
    this.inFlight = true;
    void this.post(report).then((answer) => {
      this.inFlight = false;
      if (answer === TOO_LARGE && this.smaller(items, withLive)) return this.schedule();
      if (answer !== TOO_LARGE && answer) this.batchLimit = Math.min(MAX_REPORT_EVENTS, this.batchLimit * 2);
      // The batch's events leave the queue once taken (or refused for good), not before: a
      // flush or a stop in between still counts them as unsent.
      this.pending.splice(0, count);
      this.firstPendingAt = this.pending.length > 0 ? (this.firstPendingAt ?? Date.now()) : null;
      this.journal.ack(items.filter((item) => item.journaled).map((item) => item.event));
      if (answer && answer !== TOO_LARGE) this.deliver(answer);
      if (this.idle()) this.wakeIdle();
      this.schedule();
    });
  }

  /**
   * A batch the Worker found too large goes again smaller: without the heartbeat's `live` first (the
   * next heartbeat carries it), then with fewer events, then one event without its ladder, DTMF and
   * per-leg QoS (the SIP log file, uploaded apart, has every message). False when nothing can be
   * made smaller: the batch is then dropped.
   */
  private smaller(items: Pending[], withLive: boolean): boolean {
    if (withLive) {
      this.options.log(`a heartbeat naming ${this.options.live().length} call(s) was too large for the Worker`);
      return items.length > 0;
    }
    if (items.length > 1) {
      this.batchLimit = Math.max(1, Math.floor(items.length / 2));
      return true;
    }
    const item = items[0];
    if (!item || item.slimmed || item.event.event.type !== "ended") {
      this.options.log(`call report too large even with ${items.length} event(s): dropped`);
      return false;
    }
    const { ladder: _ladder, dtmf: _dtmf, qos: _qos, ...slim } = item.event.event;
    item.event = { ...item.event, event: slim };
    item.bytes = sizeOf(item.event);
    item.slimmed = true;
    return true;
  }

  /** Posts one report until the Worker takes it; null when it refused it for good, TOO_LARGE for a 413. */
  private async post(report: CallReport): Promise<CallReportAnswer | null | typeof TOO_LARGE> {
    let delay = this.options.backoffMs;
    for (let attempt = 1; ; attempt++) {
      if (this.stopped) return new Promise(() => {}); // left for the next start, through the journal
      try {
        return await this.options.worker.report(report);
      } catch (err) {
        if (err instanceof WorkerApiError && err.status === 413) {
          this.options.log(`call report ${report.batch_id} of ${report.events.length} event(s) too large (413): sent again smaller`);
          return TOO_LARGE;
        }
        if (err instanceof WorkerApiError && refusedForGood(err.status)) {
          this.options.log(
            `call report ${report.batch_id} refused (${err.status}), ${report.events.length} event(s) dropped: ${err.message}`,
          );
          return null;
        }
        if (attempt === 1 || attempt % 20 === 0) {
          this.options.log(`call report ${report.batch_id} failed (attempt ${attempt}), retrying: ${String(err)}`);
        }
      }
      await new Promise<void>((resolve) => {
        const wake = () => {
          this.retry = null;
          resolve();
        };
        // Jittered, so nodes cut off together do not come back in step.
        this.retry = { timer: setTimeout(wake, delay * (0.5 + Math.random() / 2)), wake };
      });
      delay = Math.min(delay * 2, this.options.maxBackoffMs);
    }
  }

  private deliver(answer: CallReportAnswer): void {
    try {
      this.options.onAnswer(answer);
    } catch (err) {
      this.options.log(`applying a call report's answer: ${String(err)}`);
    }
  }
}

/**
 * A report the Worker will refuse again whatever the retry: malformed. Anything else
 * (an outage, a timeout, a throttle, a token being rotated, an endpoint not deployed yet) is
 * retried, since dropping the batch would lose the ends it carries.
 */
const refusedForGood = (status: number) => status === 400 || status === 422;

/** An event's size in a report's JSON body. */
const sizeOf = (event: ReportedEvent) => JSON.stringify(event).length + 1;

/** An end, with the boot that produced it (for the log: it is sent again under the current boot). */
type JournalEntry = { boot: string; event: ReportedEvent };

/** Lines appended since the last rewrite beyond which the journal is rewritten with only what is unacknowledged. */
const COMPACT_AFTER_LINES = 1_000;

/**
 * The ends not yet acknowledged, as JSON lines in the spool: appended (synchronously, so a crash
 * right after cannot lose one) when an end is reported, emptied when every end in it has been
 * acknowledged, rewritten with only the rest when it has grown long.
 */
class CallJournal {
  private readonly path: string;
  private readonly log: (message: string) => void;
  private readonly unacked = new Map<string, JournalEntry>();
  private lines = 0;

  constructor(path: string, log: (message: string) => void) {
    this.path = path;
    this.log = log;
    mkdirSync(dirname(path), { recursive: true });
  }

  /** What a previous run left: whole lines that parse (a line cut by a crash is skipped). */
  load(): JournalEntry[] {
    if (!existsSync(this.path)) return [];
    for (const line of readFileSync(this.path, "utf8").split("\n")) {
      if (!line.trim()) continue;
      const entry = parseEntry(line);
      if (!entry) {
        this.log(`call journal: skipped a line that does not parse: ${line.slice(0, 80)}`);
        continue;
      }
      this.unacked.set(keyOf(entry.event), entry);
    }
    this.rewrite();
    return [...this.unacked.values()];
  }

  append(entry: { boot: string; event: ReportedEvent }): void {
    const kept = { boot: entry.boot, event: entry.event };
    appendFileSync(this.path, `${JSON.stringify(kept)}\n`);
    this.unacked.set(keyOf(entry.event), kept);
    this.lines++;
  }

  ack(events: ReportedEvent[]): void {
    if (events.length === 0) return;
    for (const event of events) this.unacked.delete(keyOf(event));
    if (this.unacked.size === 0) {
      if (this.lines > 0) truncateSync(this.path, 0);
      this.lines = 0;
    } else if (this.lines > COMPACT_AFTER_LINES && this.unacked.size * 2 < this.lines) this.rewrite();
  }

  private rewrite(): void {
    const body = [...this.unacked.values()].map((entry) => `${JSON.stringify(entry)}\n`).join("");
    const next = `${this.path}.next`;
    writeFileSync(next, body);
    renameSync(next, this.path);
    this.lines = this.unacked.size;
  }
}

const keyOf = (event: ReportedEvent) => `${event.call_id}:${event.seq}`;

function parseEntry(line: string): JournalEntry | null {
  try {
    const raw = JSON.parse(line) as { boot?: unknown; event?: unknown };
    const event = ReportedEvent.safeParse(raw.event);
    if (!event.success || typeof raw.boot !== "string" || !raw.boot) return null;
    return { boot: raw.boot, event: event.data };
  } catch {
    return null;
  }
}
