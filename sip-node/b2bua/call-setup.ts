// The INVITE pipeline of a call: the caller's INVITE answered 100 at once, one admission round
// trip to the Worker, the media relay opened, the destination dialled (its digest challenge
// answered once), its provisionals relayed, and its answer ACKed, reported and passed on to the
// caller. A CANCEL from the caller, or a destination that rings too long, ends it unanswered.
import { PLACED_CALL_ACCOUNT_HEADER } from "../../schema/node-api.ts";
import { cancelOf } from "../sip/cancel.ts";
import { firstCodec, parseSdpAudio } from "../media/sdp.ts";
import { digestAuthorization, parseChallenge } from "../sip/digest-client.ts";
import { header, setHeader } from "../sip/headers.ts";
import type { SipResponse } from "../sip/message.ts";
import { parseCSeq, parseNameAddr, parseUri } from "../sip/parser.ts";
import type { Call } from "./call.ts";

const EMPTY = new Uint8Array(0);

export class CallSetup {
  private readonly call: Call;
  /** The caller sent CANCEL: the call ends with 487 as soon as that can be done. */
  private cancelled = false;
  /** A 401/407 of the destination was answered once; another is the final answer. */
  private authTried = false;
  private noAnswerTimer: ReturnType<typeof setTimeout> | null = null;

  constructor(call: Call) {
    this.call = call;
  }

  async start(): Promise<void> {
    const call = this.call;
    const { host, invite } = call;
    call.record("in", invite, call.caller, host.local);
    const from = parseNameAddr(header(invite, "From")!);
    const to = parseNameAddr(header(invite, "To")!);
    const contact = header(invite, "Contact");
    call.a = {
      callId: header(invite, "Call-ID")!,
      localTag: call.newTag(),
      remoteTag: from.tag,
      localUri: header(invite, "To")!,
      remoteUri: header(invite, "From")!,
      remoteTarget: contact ? parseNameAddr(contact).uri : from.uri,
      endpoint: call.caller,
      localSeq: 1,
    };
    call.inviteTx.onCancel = () => this.cancelFromCaller();
    host.register(call.a.callId, call.a.localTag, call.session, "a");
    call.replyToA(100);

    const requestUri = parseUri(invite.uri);
    const admission = await host.worker
      .admit({
        node_id: host.nodeId,
        boot_id: host.bootId,
        ...(call.dialer
          ? { customer_id: call.dialer.customerId, dialer_token: call.dialer.token, origin: "dialer" as const }
          : { ...withAccount(host.accountOf(call.caller.address)), origin: "sip" as const }),
        sip_call_id: call.a.callId,
        src_ip: call.caller.address,
        src_port: call.caller.port,
        ani: parseUri(from.uri).user ?? null,
        dialed: requestUri.user ?? parseUri(to.uri).user ?? "",
      })
      .catch((err: unknown) => {
        call.log.warn(`admission failed: ${String(err)}`);
        return null;
      });
    if (!admission) return call.finishUnanswered(503, "admission_unavailable", "platform", false);
    if (admission.decision === "ignore") {
      call.state = "ended";
      call.inviteTx.terminate();
      host.unregister(call.session);
      return call.endSipLog(null);
    }
    if (admission.decision === "reject") {
      call.replyToA(admission.sip_code);
      call.state = "ended";
      host.unregister(call.session);
      // A refusal the Worker recorded (the account is known) keeps its SIP log too.
      return call.endSipLog(admission.call_id);
    }
    call.admitted(admission);
    if (this.cancelled) return call.finishUnanswered(487, "cancelled", "caller");
    const recorded = admission.processing !== "relay_only";
    call.relay = await host.media.open(admission.call_id, { record: recorded, capture: recorded }).catch((err: unknown) => {
      call.log.warn(`no media: ${String(err)}`);
      return null;
    });
    if (!call.relay) return call.finishUnanswered(503, "no_media_port", "platform");
    if (this.cancelled) return call.finishUnanswered(487, "cancelled", "caller");
    if (call.dialer && !(await this.answerBrowser())) return;
    if (this.cancelled) return call.finishUnanswered(487, "cancelled", "caller");
    await this.dial();
  }

  /**
   * A web dialer call: werift answers the browser's WebRTC offer and stands for it on the relay's
   * caller side; the destination is offered plain RTP. False when the offer cannot be answered (488).
   */
  private async answerBrowser(): Promise<boolean> {
    const call = this.call;
    const offer = new TextDecoder().decode(call.invite.body);
    const open = call.host.media.openWebRtcLeg;
    const leg = open
      ? await open.call(call.host.media, call.relay!, "caller", offer).catch((err: unknown) => {
          call.log.warn(`webrtc: ${String(err)}`);
          return null;
        })
      : null;
    if (!leg) {
      call.finishUnanswered(488, "webrtc_offer_refused", "platform");
      return false;
    }
    call.webrtc = leg;
    return true;
  }

  /** The SDP the destination is offered: the caller's own, or, for a browser, the WebRTC leg's plain RTP. */
  private offerFromA(): Uint8Array {
    const call = this.call;
    return call.anchor("a", call.webrtc ? call.webrtc.relaySdpBytes : call.invite.body);
  }

  /** The B leg: our INVITE to the ticket's destination, with the caller's offer anchored at the relay. */
  private async dial(): Promise<void> {
    const call = this.call;
    const ticket = call.ticket!;
    const destination = ticket.destination;
    const address = await call.host.resolve(destination.host).catch(() => null);
    if (!address) return call.finishUnanswered(502, "destination_unresolvable", "platform");
    const target = `sip:${ticket.dialed}@${destination.host}${destination.port === 5060 ? "" : `:${destination.port}`}`;
    const from = parseNameAddr(header(call.invite, "From")!);
    const local = call.host.local;
    call.b = {
      callId: call.newCallId(),
      localTag: call.newTag(),
      remoteTag: null,
      localUri: `${from.displayName ? `"${from.displayName}" ` : ""}<sip:${ticket.ani ?? "anonymous"}@${local.address}>`,
      remoteUri: `<sip:${ticket.dialed}@${destination.host}>`,
      remoteTarget: target,
      endpoint: { address, port: destination.port, protocol: destination.transport, serverName: destination.host },
      localSeq: 1,
    };
    call.host.register(call.b.callId, call.b.localTag, call.session, "b");
    call.state = "calling";
    this.sendInviteToB();
    this.noAnswerTimer = call.after(call.host.noAnswerMs, () => this.giveUpRinging());
  }

  /** Nobody answered in time: cancel the destination, tell the caller 480. */
  private giveUpRinging(): void {
    const call = this.call;
    if (call.state !== "calling" && call.state !== "early") return;
    this.cancelB();
    call.finishUnanswered(480, "no_answer", "platform");
  }

  private sendInviteToB(authorization?: [string, string]): void {
    const call = this.call;
    const b = call.b!;
    const request = call.requestOn(b, "INVITE", b.remoteTarget, this.offerFromA());
    const type = call.webrtc ? "application/sdp" : header(call.invite, "Content-Type");
    if (type) setHeader(request.headers, "Content-Type", type);
    // A call the platform places (the web dialer's) says which account it is for, signed.
    if (call.ticket!.account_assertion) request.headers.push([PLACED_CALL_ACCOUNT_HEADER, call.ticket!.account_assertion]);
    if (authorization) request.headers.push(authorization);
    call.bInvite = request;
    call.offerToB = request.body;
    call.send(request, b.endpoint, (response) => this.onInviteResponse(response));
  }

  private onInviteResponse(response: SipResponse | null): void {
    const call = this.call;
    if (call.state === "ended") {
      // A 200 that crossed the caller's CANCEL still opened a dialog with the callee: ACK it and hang up.
      if (response && response.status >= 200 && response.status < 300 && this.cancelled) this.answered(response);
      return;
    }
    if (!response) return call.finishUnanswered(408, "destination_timeout", "platform");
    call.record("in", response, call.b!.endpoint, call.host.local);
    const status = response.status;
    if (status === 100) return;
    if (status < 200) {
      call.b!.remoteTag ??= parseNameAddr(header(response, "To")!).tag;
      call.report.ringing(response.body.length > 0);
      call.state = "early";
      call.replyToA(status, response.reason, call.anchor("b", response.body), header(response, "Content-Type"));
      return;
    }
    if (status < 300) return this.answered(response);
    const auth = call.ticket?.destination.auth;
    if ((status === 401 || status === 407) && !this.authTried && auth) {
      this.authTried = true;
      const challenge = parseChallenge(header(response, status === 401 ? "WWW-Authenticate" : "Proxy-Authenticate") ?? "");
      const value = challenge && digestAuthorization(challenge, auth, "INVITE", call.b!.remoteTarget);
      if (value) return this.sendInviteToB([status === 401 ? "Authorization" : "Proxy-Authorization", value]);
    }
    call.finishUnanswered(status, null, this.cancelled ? "caller" : "callee", true, response.reason);
  }

  private answered(response: SipResponse): void {
    const call = this.call;
    call.clearTimer(this.noAnswerTimer);
    const b = call.b!;
    b.remoteTag = parseNameAddr(header(response, "To")!).tag;
    const contact = header(response, "Contact");
    if (contact) b.remoteTarget = parseNameAddr(contact).uri;
    // We end the B leg's INVITE at once with its ACK (RFC 3261 §13.2.2.4), unless the ACK must
    // carry the caller's answer to an offer the callee made in this 200 (late offer).
    const ack = call.requestOn(b, "ACK", b.remoteTarget, EMPTY, parseCSeq(header(call.bInvite!, "CSeq")!).seq);
    const lateOffer = call.invite.body.length === 0 && response.body.length > 0 && !this.cancelled;
    if (lateOffer) call.dialog.holdAckToB(ack);
    else call.dialog.sendAckToB(ack);
    if (this.cancelled) {
      // The caller gave up as the callee answered: hang the callee up.
      call.dialog.bye("b");
      return call.finishUnanswered(487, "cancelled", "caller");
    }
    call.state = "confirmed";
    call.report.answered(answerCodec(response.body));
    call.credit.answered();
    call.host.media.watch(call.relay!, () => call.hangUp("media_timeout"));
    const ok = call.responseToA(200, "OK", call.anchor("b", response.body), header(response, "Content-Type"));
    call.inviteTx.respond(ok);
    call.record("out", ok, call.host.local, call.caller);
    call.dialog.retransmitOk(ok);
    call.after(call.ticket!.max_call_seconds * 1000, () => call.hangUpBoth("platform", "max_call_seconds"));
  }

  private cancelFromCaller(): void {
    const call = this.call;
    this.cancelled = true;
    if (call.state === "calling" || call.state === "early") {
      this.cancelB();
      // The caller hears 487 now; the destination's 487 (or a racing 200) is handled as it comes.
      call.finishUnanswered(487, "cancelled", "caller");
    }
  }

  /** CANCEL for the destination's INVITE. */
  cancelB(): void {
    this.call.send(cancelOf(this.call.bInvite!), this.call.b!.endpoint, () => {});
  }
}

const withAccount = (customerId: string | undefined) => (customerId ? { customer_id: customerId } : {});

/** The voice codec of the callee's SDP (the answer, or its offer in a late offer), for the report. */
function answerCodec(body: Uint8Array): string | null {
  if (body.length === 0) return null;
  const sdp = new TextDecoder().decode(body);
  const media = parseSdpAudio(sdp);
  return media ? firstCodec(media, sdp) : null;
}
