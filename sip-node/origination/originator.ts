// The test calls this node places: the Worker's `originate` command starts one (answered at once,
// the call goes on by itself), `cancel_test_call` withdraws it; the node's hang-up, credit
// grants, heartbeat (live calls), inspector stats and drain reach them here as they reach the
// B2BUA's calls. Their dialogs are routed to them by the B2BUA, the node's transaction user.
import { PendingWork } from "../b2bua/call-timers.ts";
import { lookup } from "node:dns/promises";
import { isIP } from "node:net";
import type { CallReportAnswer, OriginateCommand } from "../../schema/node-api.ts";
import type { OriginatedDialog } from "../b2bua/b2bua.ts";
import type { LiveCall } from "../control/call-reporter.ts";
import { ProgressPoster } from "./progress.ts";
import { TestCall, type OriginationHost } from "./test-call.ts";

export type OriginatorOptions = Omit<
  OriginationHost,
  "progress" | "register" | "unregisterDialog" | "ended" | "track" | "resolve" | "worker"
> & {
  worker: OriginationHost["worker"] & ConstructorParameters<typeof ProgressPoster>[0];
  dialogs: { registerOriginated(callId: string, dialog: OriginatedDialog): void; forgetOriginated(callId: string): void };
};

export class Originator {
  private readonly host: OriginationHost;
  /** Calls under way, by test call id. */
  private readonly calls = new Map<string, TestCall>();
  /** What ended calls still do (progress, reports, uploads), for a drain to wait on. */
  private readonly work = new PendingWork();
  private draining = false;

  constructor(options: OriginatorOptions) {
    const { dialogs, ...rest } = options;
    this.host = {
      ...rest,
      progress: new ProgressPoster(options.worker, options.nodeId, options.log),
      resolve: (host) => (isIP(host) ? Promise.resolve(host) : lookup(host).then((r) => r.address)),
      register: (callId, dialog) => dialogs.registerOriginated(callId, dialog),
      unregisterDialog: (callId) => dialogs.forgetOriginated(callId),
      ended: (call) => {
        if (this.calls.get(call.testCallId) === call) this.calls.delete(call.testCallId);
      },
      track: (work) => this.work.track(work),
    };
  }

  /** Starts a test call (the same test call asked again is the one under way); refused while the node drains. */
  originate(command: OriginateCommand): { accepted: true; test_call_id: string } {
    if (this.draining) throw new Error("this node is draining: it places no new test calls");
    if (!this.calls.has(command.test_call_id)) {
      const call = new TestCall(this.host, command);
      this.calls.set(command.test_call_id, call);
      void call.start().catch((err: unknown) => {
        call.log.error(String(err));
        call.hangUp("internal_error");
      });
    }
    return { accepted: true, test_call_id: command.test_call_id };
  }

  /** Withdraws a test call: CANCEL before the answer, BYE after; false when this node has no such call up. */
  cancel(testCallId: string): boolean {
    return this.calls.get(testCallId)?.cancel() ?? false;
  }

  get activeCalls(): number {
    return this.calls.size;
  }

  /** Hangs up the test call the Worker knows as call `callId`; false when this node does not carry it. */
  hangUp(callId: string, reason = "hangup_requested"): boolean {
    const call = this.byCallId(callId);
    call?.hangUp(reason);
    return call !== undefined;
  }

  hangUpAll(reason: string): void {
    for (const call of [...this.calls.values()]) call.hangUp(reason);
  }

  stopTakingCalls(): void {
    this.draining = true;
  }

  liveCalls(): LiveCall[] {
    const live: LiveCall[] = [];
    for (const call of this.calls.values()) {
      const { ticket, state } = call;
      // A verification call is unknown to the ledger: naming it live would have it ended as unknown.
      if (ticket && state !== "ended" && call.keepsRecord) live.push({ call_id: ticket.call_id, customer_id: ticket.customer_id });
    }
    return live;
  }

  /** The call ledger's answer to a report: grants extend talk time, ended calls are hung up. */
  applyReportAnswer(answer: CallReportAnswer): void {
    for (const { call_id, granted_seconds } of answer.grants) this.byCallId(call_id)?.credit.grant(granted_seconds);
    for (const { call_id, reason } of answer.ended) this.byCallId(call_id)?.hangUp(reason);
  }

  mediaStats(callId: string) {
    return this.byCallId(callId)?.mediaStats() ?? null;
  }

  /** The messages of a test call recorded so far, for the inspector; null when this node does not place it. */
  ladder(callId: string) {
    return this.byCallId(callId)?.ladder() ?? null;
  }

  /** Resolves when what ended calls still do is done, or after `timeoutMs`. */
  settled(timeoutMs: number): Promise<void> {
    return this.work.settled(timeoutMs);
  }

  private byCallId(callId: string): TestCall | undefined {
    for (const call of this.calls.values()) if (call.ticket?.call_id === callId) return call;
    return undefined;
  }
}
