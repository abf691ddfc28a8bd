// The dialogs of an answered call: requests inside either leg's dialog (BYE ends the call on
// both legs; re-INVITE, UPDATE, INFO... pass to the other leg with their SDP anchored at the
// relay), our 2xx to the caller retransmitted until its ACK, our ACK of the callee's 2xx (sent
// again when the 2xx comes back), and the late offer, whose ACK to the callee waits for the
// caller's ACK and carries its answer.
import { header, setHeader } from "../sip/headers.ts";
import type { SipRequest, SipResponse } from "../sip/message.ts";
import { parseCSeq } from "../sip/parser.ts";
import { responseTo, type ServerTransaction } from "../sip/transactions.ts";
import type { Endpoint } from "../sip/transport.ts";
import type { Call } from "./call.ts";
import type { Leg } from "./call-session.ts";

const EMPTY = new Uint8Array(0);

export class CallDialog {
  private readonly call: Call;
  /** Our 2xx to the caller is out and its ACK has not come. */
  private awaitingAck = false;
  private okTimer: ReturnType<typeof setTimeout> | null = null;
  /** Late offer: the caller's INVITE had no SDP, so its ACK carries the answer the callee needs. */
  private heldAckToB: SipRequest | null = null;
  /** Our last ACK of the callee's 2xx, sent again if that 2xx comes back. */
  lastAckToB: SipRequest | null = null;

  constructor(call: Call) {
    this.call = call;
  }

  /** The 2xx to the caller is ours to retransmit until the ACK (RFC 3261 §13.3.1.4). */
  retransmitOk(ok: SipResponse): void {
    const call = this.call;
    const { T1, T2 } = call.host.layer.timers;
    let interval = T1;
    let elapsed = 0;
    const tick = () => {
      if (!this.awaitingAck) return;
      elapsed += interval;
      if (elapsed >= 64 * T1) {
        call.host.unacknowledged?.(call.caller);
        return call.hangUpBoth("platform", "no_ack");
      }
      call.host.layer.sendStateless(ok, call.caller);
      interval = Math.min(interval * 2, T2);
      this.okTimer = call.after(interval, tick);
    };
    this.awaitingAck = true;
    if (call.caller.protocol === "udp") this.okTimer = call.after(interval, tick);
  }

  onAck(leg: Leg, ack: SipRequest): void {
    if (leg === "a" && this.awaitingAck) {
      this.awaitingAck = false;
      this.call.clearTimer(this.okTimer);
    }
    if (leg === "a" && this.heldAckToB) {
      const toB = this.heldAckToB;
      this.heldAckToB = null;
      toB.body = this.call.anchor("a", ack.body);
      const type = header(ack, "Content-Type");
      if (type && toB.body.length > 0) setHeader(toB.headers, "Content-Type", type);
      this.sendAckToB(toB);
    }
  }

  /**
   * A 2xx from the callee after its INVITE transaction ended means our ACK was lost: send the
   * same ACK again (RFC 3261 §13.2.2.4). Before the caller's ACK of a late offer, wait for it.
   */
  onRetransmitted2xx(): void {
    if (this.lastAckToB && !this.heldAckToB) this.call.host.layer.sendStateless(this.lastAckToB, this.call.b!.endpoint);
  }

  sendAckToB(ack: SipRequest): void {
    const call = this.call;
    this.lastAckToB = ack;
    call.host.layer.sendStateless(ack, call.b!.endpoint);
    call.record("out", ack, call.host.local, call.b!.endpoint);
  }

  /** Late offer: the ACK of the callee's 2xx goes once the caller's ACK brings the answer. */
  holdAckToB(ack: SipRequest): void {
    this.heldAckToB = ack;
  }

  /** The call ends with the caller's ACK still awaited: the callee gets its ACK as it is. */
  releaseHeldAck(): void {
    if (this.heldAckToB) this.sendAckToB(this.heldAckToB);
  }

  /** A request inside the dialog of one leg: BYE ends the call; others pass to the other leg. */
  onInDialogRequest(request: SipRequest, tx: ServerTransaction, leg: Leg, from: Endpoint): void {
    const call = this.call;
    call.record("in", request, from, call.host.local);
    if (request.method === "BYE") {
      call.respond(tx, request, 200, leg);
      const other: Leg = leg === "a" ? "b" : "a";
      if (call.state === "confirmed") this.bye(other);
      return call.finish(leg === "a" ? "caller" : "callee", null);
    }
    if (request.method === "NOTIFY" && leg === "a" && call.transfers.underWay && /^refer\b/i.test(header(request, "Event") ?? "")) {
      return call.transfers.onReferProgress(request, tx);
    }
    const otherDialog = leg === "a" ? call.b : call.a;
    if (!otherDialog || call.state === "ended") return call.respond(tx, request, 481, leg);
    if (call.webrtc && (request.method === "INVITE" || request.method === "UPDATE")) return this.keepWebRtcSession(request, tx, leg);
    // re-INVITE, UPDATE, INFO and the like pass through, their SDP anchored at our relay.
    const other: Leg = leg === "a" ? "b" : "a";
    const forwarded = call.requestOn(otherDialog, request.method, otherDialog.remoteTarget, call.anchor(leg, request.body));
    const type = header(request, "Content-Type");
    if (type) setHeader(forwarded.headers, "Content-Type", type);
    call.send(forwarded, otherDialog.endpoint, (response) => {
      if (!response) return call.respond(tx, request, 408, leg);
      call.record("in", response, otherDialog.endpoint, call.host.local);
      if (request.method === "INVITE" && response.status >= 200 && response.status < 300) {
        const seq = parseCSeq(header(forwarded, "CSeq")!).seq;
        const ack = call.requestOn(otherDialog, "ACK", otherDialog.remoteTarget, EMPTY, seq);
        call.host.layer.sendStateless(ack, otherDialog.endpoint);
      }
      const relayed = responseTo(request, response.status, response.reason, call.dialogOf(leg)!.localTag);
      relayed.body = call.anchor(other, response.body);
      const rtype = header(response, "Content-Type");
      if (rtype) setHeader(relayed.headers, "Content-Type", rtype);
      setHeader(relayed.headers, "Contact", call.contact(from.protocol));
      tx.respond(relayed);
      call.record("out", relayed, call.host.local, from);
    });
  }

  /**
   * A web dialer call's session is not renegotiated across the bridge: the browser's re-offer gets
   * 488 (its session stays as it was, RFC 3261 §14.2); the destination's (a refresh, a hold) is
   * answered here with the offer it already has, its new address and law taken by the relay.
   */
  private keepWebRtcSession(request: SipRequest, tx: ServerTransaction, leg: Leg): void {
    const call = this.call;
    if (leg === "a") return call.respond(tx, request, 488, leg);
    call.anchor("b", request.body);
    const ok = responseTo(request, 200, "OK", call.b!.localTag);
    ok.body = call.offerToB;
    setHeader(ok.headers, "Content-Type", "application/sdp");
    setHeader(ok.headers, "Contact", call.contact(call.b!.endpoint.protocol));
    tx.respond(ok);
    call.record("out", ok, call.host.local, call.b!.endpoint);
  }

  /** Hangs up one leg (no BYE before that leg has a dialog). */
  bye(leg: Leg): void {
    const call = this.call;
    const dialog = call.dialogOf(leg);
    if (!dialog) return;
    const request = call.requestOn(dialog, "BYE", dialog.remoteTarget, EMPTY);
    call.send(request, dialog.endpoint, (response) => {
      if (response) call.record("in", response, dialog.endpoint, call.host.local);
    });
  }
}
