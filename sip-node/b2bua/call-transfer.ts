// Transfers of an answered call, ordered through the Worker. `platform`: we dial the target at
// the same destination and, once it answers, hang up the old callee; the caller keeps talking to
// our relay, so it needs no re-INVITE. `refer`: we ask the caller's side to call the target
// (REFER, RFC 3515) and follow its NOTIFYs. The outcome is reported as a transfer event.
import type { AdmissionTicket } from "../../schema/node-api.ts";
import type { CallReport } from "../calls/call-report.ts";
import type { CallSignalling } from "../calls/call-signalling.ts";
import { contactOf, newCallId, responseIn, type Dialog } from "../calls/dialog.ts";
import type { LegEvents, LegTarget, OutboundLeg } from "../calls/outbound-leg.ts";
import type { SipRequest, SipResponse } from "../sip/message.ts";
import type { ServerTransaction } from "../sip/transactions.ts";
import type { CallerLeg } from "./caller-leg.ts";
import type { CallMedia } from "./call-media.ts";
import type { CallState } from "./call-state.ts";

type Mode = "platform" | "refer";

/** What a transfer needs of its call. */
export type TransferredCall = {
  readonly state: CallState;
  readonly ticket: AdmissionTicket | null;
  readonly signalling: Pick<CallSignalling, "local" | "sendIn" | "received">;
  readonly caller: Pick<CallerLeg, "dialog" | "endpoint">;
  readonly media: Pick<CallMedia, "calleeOffer">;
  readonly report: Pick<CallReport, "transfer">;
  dialogOf(leg: "b"): Dialog | null;
  /** A new leg towards the destination; the requests inside its dialog are the callee's. */
  dialCallee(target: LegTarget, events: Omit<LegEvents, "request">): OutboundLeg;
  /** The target answered: it takes the callee's place on the relay. */
  replaceCallee(leg: OutboundLeg, answer: SipResponse): void;
};

export class CallTransfer {
  private readonly call: TransferredCall;
  /** The target of a transfer under way, until it completes or fails. */
  private target: string | null = null;

  constructor(call: TransferredCall) {
    this.call = call;
  }

  get underWay(): boolean {
    return Boolean(this.target);
  }

  start(target: string, mode: Mode): { status: "in_progress" } {
    const call = this.call;
    if (call.state !== "confirmed") throw new Error("only a call that is up can be transferred");
    if (this.target) throw new Error("a transfer of this call is already under way");
    if (mode === "platform" && call.media.calleeOffer.length === 0)
      throw new Error("the caller made no SDP offer to bridge a new callee to");
    this.target = target;
    if (mode === "refer") this.referCaller(target);
    else this.bridgeTo(target);
    return { status: "in_progress" };
  }

  private bridgeTo(target: string): void {
    const call = this.call;
    const destination = call.ticket!.destination;
    const callee = call.dialogOf("b")!;
    const dialed = `${destination.tech_prefix ?? ""}${target}`;
    const leg: OutboundLeg = call.dialCallee(
      {
        callId: newCallId(call.signalling.local),
        localUri: callee.localUri,
        remoteUri: `<sip:${dialed}@${destination.host}>`,
        remoteTarget: `sip:${dialed}@${destination.host}${destination.port === 5060 ? "" : `:${destination.port}`}`,
        endpoint: callee.endpoint,
        localSeq: 1,
      },
      {
        ringing: () => {},
        answered: (response) => this.targetAnswered(leg, response),
        failed: (response) => {
          leg.forget();
          this.done("platform", "failed", response?.status ?? 408);
        },
        unanswered: () => {},
      },
    );
    leg.call({ body: call.media.calleeOffer, contentType: "application/sdp" });
  }

  private targetAnswered(leg: OutboundLeg, response: SipResponse): void {
    if (this.call.state !== "confirmed") {
      // The call ended while the target was being dialled: its answer is hung up.
      leg.forget();
      leg.bye();
      return this.done("platform", "failed", response.status);
    }
    this.call.replaceCallee(leg, response);
    this.done("platform", "completed", response.status);
  }

  private referCaller(target: string): void {
    const call = this.call;
    const { dialog, endpoint } = call.caller;
    const headers: Array<[string, string]> = [
      ["Refer-To", `<sip:${target}@${endpoint.address}>`],
      ["Referred-By", contactOf(call.signalling.local, endpoint.protocol)],
    ];
    call.signalling.sendIn(dialog, "REFER", { headers }, (response) => {
      if (response) call.signalling.received(response, dialog.endpoint);
      if (response && response.status < 200) return;
      if (!response || response.status >= 300) return this.done("refer", "failed", response?.status ?? 408);
      call.report.transfer({ target, mode: "refer", status: "accepted", code: response.status });
    });
  }

  /** The caller's NOTIFY about our REFER: its body is the status line of the call it placed. */
  onReferProgress(request: SipRequest, tx: ServerTransaction): void {
    tx.respond(responseIn(this.call.caller.dialog, request, 200));
    const code = Number(/^SIP\/2\.0 (\d{3})/.exec(new TextDecoder().decode(request.body))?.[1] ?? 0);
    if (code >= 200) this.done("refer", code < 300 ? "completed" : "failed", code);
  }

  private done(mode: Mode, status: "completed" | "failed", code: number): void {
    const target = this.target;
    this.target = null;
    if (target) this.call.report.transfer({ target, mode, status, code });
  }
}
