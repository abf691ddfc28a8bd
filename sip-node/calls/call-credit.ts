// The talk time the account's credit covers for one call: the ticket's granted seconds at first,
// then the newest grant the Worker's call ledger answers a report with (grants only grow). From
// the answer on, the call is ended on both sides (end_reason credit_exhausted) when talk reaches
// the covered time; a larger grant moves that moment later. A grant shorter than the heartbeat
// interval asks for a report in time for the ledger to top it up.
import type { AdmissionTicket } from "../../schema/node-api.ts";
import type { CallTimers } from "./call-timers.ts";

/** What a credited call offers: a B2BUA call, or a call the node places itself (a test call). */
export type CreditedCall = {
  readonly state: string;
  readonly ticket: AdmissionTicket | null;
  readonly timers: Pick<CallTimers, "after" | "clear">;
  /** Asks for a report to the call ledger by `atMs`. */
  renewCredit(atMs: number): void;
  hangUpBoth(by: "platform", reason: string): void;
};

/** How long before the covered time runs out the ledger must have heard of the call to top it up. */
const RENEW_AHEAD_MS = 2_000;

export class CallCredit {
  private readonly call: CreditedCall;
  private grantedSeconds = 0;
  private answeredAt: number | null = null;
  private timer: ReturnType<typeof setTimeout> | null = null;

  constructor(call: CreditedCall) {
    this.call = call;
  }

  /** Seconds of talk covered now. */
  get granted(): number {
    return this.grantedSeconds;
  }

  /** A grant (the ticket's, or a report's answer): a smaller or equal one changes nothing. */
  grant(seconds: number): void {
    if (seconds <= this.grantedSeconds) return;
    this.grantedSeconds = seconds;
    if (this.answeredAt !== null) this.schedule();
  }

  /** The callee answered now: talk time counts from here. */
  answered(): void {
    this.answeredAt = Date.now();
    this.schedule();
  }

  private schedule(): void {
    const call = this.call;
    call.timers.clear(this.timer);
    this.timer = null;
    if (call.state === "ended" || this.answeredAt === null) return;
    // Credit for the whole cap: the cap's own timer ends the call (as max_call_seconds).
    if (call.ticket && this.grantedSeconds >= call.ticket.max_call_seconds) return;
    const endsAt = this.answeredAt + this.grantedSeconds * 1000;
    this.timer = call.timers.after(Math.max(0, endsAt - Date.now()), () => call.hangUpBoth("platform", "credit_exhausted"));
    call.renewCredit(endsAt - RENEW_AHEAD_MS);
  }
}
