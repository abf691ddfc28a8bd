// Transfers of an answered call, ordered through the Worker. `platform`: we call the target at
// the same destination and, once it answers, hang up the old callee; the caller keeps talking to
// our relay, so it needs no re-INVITE. `refer`: we ask the caller's side to call the target
// (REFER, RFC 3515) and follow its NOTIFYs. The outcome is reported as a transfer event.
import { header, setHeader } from "../sip/headers.ts";
import type { SipRequest, SipResponse } from "../sip/message.ts";
import { parseCSeq, parseNameAddr } from "../sip/parser.ts";
import type { ServerTransaction } from "../sip/transactions.ts";
import type { Call, Dialog } from "./call.ts";

type Mode = "platform" | "refer";
const EMPTY = new Uint8Array(0);

export class CallTransfer {
  private readonly call: Call;
  /** The target of a transfer under way, until it completes or fails. */
  private target: string | null = null;

  constructor(call: Call) {
    this.call = call;
  }

  get underWay(): boolean {
    return Boolean(this.target);
  }

  start(target: string, mode: Mode): { status: "in_progress" } {
    const call = this.call;
    if (call.state !== "confirmed") throw new Error("only a call that is up can be transferred");
    if (this.target) throw new Error("a transfer of this call is already under way");
    if (mode === "platform" && call.offerToB.length === 0) throw new Error("the caller made no SDP offer to bridge a new callee to");
    this.target = target;
    if (mode === "refer") this.referCaller(target);
    else void this.bridgeTo(target);
    return { status: "in_progress" };
  }

  private async bridgeTo(target: string): Promise<void> {
    const call = this.call;
    const destination = call.ticket!.destination;
    const old = call.b!;
    const dialed = `${destination.tech_prefix ?? ""}${target}`;
    const c: Dialog = {
      ...old,
      callId: call.newCallId(),
      localTag: call.newTag(),
      remoteTag: null,
      remoteUri: `<sip:${dialed}@${destination.host}>`,
      remoteTarget: `sip:${dialed}@${destination.host}${destination.port === 5060 ? "" : `:${destination.port}`}`,
      localSeq: 1,
    };
    const invite = call.requestOn(c, "INVITE", c.remoteTarget, call.offerToB);
    setHeader(invite.headers, "Content-Type", "application/sdp");
    call.host.register(c.callId, c.localTag, call.session, "b");
    call.send(invite, c.endpoint, (response) => this.onTargetAnswer(c, invite, response));
  }

  private onTargetAnswer(c: Dialog, invite: SipRequest, response: SipResponse | null): void {
    const call = this.call;
    if (response) call.record("in", response, c.endpoint, call.host.local);
    if (response && response.status < 200) return;
    if (!response || response.status >= 300 || call.state !== "confirmed") {
      call.host.unregisterDialog(c.callId, c.localTag);
      if (response && response.status < 300) this.hangUpLateAnswer(c, invite, response);
      return this.done("platform", "failed", response?.status ?? 408);
    }
    c.remoteTag = parseNameAddr(header(response, "To")!).tag;
    const contact = header(response, "Contact");
    if (contact) c.remoteTarget = parseNameAddr(contact).uri;
    const ack = this.sendAckTo(c, invite);
    // The old callee goes; the new one takes its place on the relay's callee side.
    const old = call.b!;
    call.dialog.bye("b");
    call.host.unregisterDialog(old.callId, old.localTag);
    call.b = c;
    call.bInvite = invite;
    call.dialog.lastAckToB = ack;
    call.anchor("b", response.body);
    this.done("platform", "completed", response.status);
  }

  /** A transfer target that answered after the call ended: ACK it and hang it up. */
  private hangUpLateAnswer(c: Dialog, invite: SipRequest, response: SipResponse): void {
    const call = this.call;
    c.remoteTag = parseNameAddr(header(response, "To")!).tag;
    this.sendAckTo(c, invite);
    const bye = call.requestOn(c, "BYE", c.remoteTarget, EMPTY);
    call.send(bye, c.endpoint, () => {});
  }

  private sendAckTo(dialog: Dialog, invite: SipRequest): SipRequest {
    const call = this.call;
    const ack = call.requestOn(dialog, "ACK", dialog.remoteTarget, EMPTY, parseCSeq(header(invite, "CSeq")!).seq);
    call.host.layer.sendStateless(ack, dialog.endpoint);
    call.record("out", ack, call.host.local, dialog.endpoint);
    return ack;
  }

  private referCaller(target: string): void {
    const call = this.call;
    const a = call.a;
    const refer = call.requestOn(a, "REFER", a.remoteTarget, EMPTY);
    refer.headers.push(["Refer-To", `<sip:${target}@${call.caller.address}>`], ["Referred-By", call.contact(call.caller.protocol)]);
    call.send(refer, a.endpoint, (response) => {
      if (response) call.record("in", response, a.endpoint, call.host.local);
      if (response && response.status < 200) return;
      if (!response || response.status >= 300) return this.done("refer", "failed", response?.status ?? 408);
      call.report.transfer({ target, mode: "refer", status: "accepted", code: response.status });
    });
  }

  /** The caller's NOTIFY about our REFER: its body is the status line of the call it placed. */
  onReferProgress(request: SipRequest, tx: ServerTransaction): void {
    this.call.respond(tx, request, 200, "a");
    const code = Number(/^SIP\/2\.0 (\d{3})/.exec(new TextDecoder().decode(request.body))?.[1] ?? 0);
    if (code >= 200) this.done("refer", code < 300 ? "completed" : "failed", code);
  }

  private done(mode: Mode, status: "completed" | "failed", code: number): void {
    const target = this.target;
    this.target = null;
    if (target) this.call.report.transfer({ target, mode, status, code });
  }
}
