// One call through the B2BUA: the caller's leg (A), where we answer the caller's INVITE, and the
// destination's (B), a leg we dial; the admission ticket, the media relay, the call's timers and
// what is reported of it. Its course is here: the INVITE answered 100, one admission round trip
// to the Worker, the relay opened, the destination dialled and its answer passed on to the
// caller, then the end on both legs (a BYE from either side, the caller's CANCEL, a limit, a
// hang-up command). Its parts get only what they need of it: CallerLeg, OutboundLeg, CallMedia,
// InDialogRequests, CallTransfer, CallCredit, CallReport and CallSipLog.
import { PLACED_CALL_ACCOUNT_HEADER, type AdmissionRejection, type AdmissionTicket, type AdmitRequest } from "../../schema/node-api.ts";
import { CallCredit } from "../calls/call-credit.ts";
import { callLog, type CallLog } from "../calls/call-log.ts";
import { CallReport, type HangupBy } from "../calls/call-report.ts";
import { CallSignalling } from "../calls/call-signalling.ts";
import { CallSipLog } from "../calls/call-sip-log.ts";
import { CallTimers } from "../calls/call-timers.ts";
import { newCallId, type Dialog } from "../calls/dialog.ts";
import { OutboundLeg, type LegEvents, type LegTarget } from "../calls/outbound-leg.ts";
import type { CallRegistry, NodeCall } from "../calls/registry.ts";
import type { CallReporter } from "../control/call-reporter.ts";
import type { WorkerClient } from "../control/worker-client.ts";
import type { MediaEngine } from "../media/engine.ts";
import { firstCodec, parseSdpAudio } from "../media/sdp.ts";
import type { IdentityReader } from "../screening/identity-verifier.ts";
import { reasonHeader } from "../screening/reason-header.ts";
import { callerIdOf } from "../screening/verstat.ts";
import { reasonPhrase } from "../sip/causes.ts";
import { header } from "../sip/headers.ts";
import type { SipMessage, SipRequest, SipResponse } from "../sip/message.ts";
import { parseNameAddr, parseUri } from "../sip/parser.ts";
import { responseTo, type ServerTransaction, type TransactionLayer } from "../sip/transactions.ts";
import type { Endpoint } from "../sip/transport.ts";
import { CallerLeg } from "./caller-leg.ts";
import { CallMedia, type CallMediaEngine } from "./call-media.ts";
import type { CallState, Leg } from "./call-state.ts";
import { CallTransfer } from "./call-transfer.ts";
import { InDialogRequests } from "./in-dialog.ts";

/** What a call needs of the node: the B2BUA in production, an in-memory stand-in in tests. */
export type CallHost = {
  layer: Pick<TransactionLayer, "timers" | "sendRequest" | "sendStateless">;
  worker: Pick<WorkerClient, "admit">;
  /** Takes the call's events, numbered and batched to the Worker's call ledger. */
  reporter: Pick<CallReporter, "report">;
  /** This run of the node (a new one at every start), sent with each admission. */
  bootId: string;
  nodeId: string;
  noAnswerMs: number;
  /** Our address for Via and Contact. */
  local: { address: string; port: number };
  /** The account whose whitelist range holds a source address (the node's copy of the whitelist). */
  accountOf(address: string): string | undefined;
  /** Asks for a report to the call ledger by `atMs` (a call's covered talk time runs out soon after). */
  renewCredit(atMs: number): void;
  media: CallMediaEngine & Pick<MediaEngine, "upload" | "openSipLog">;
  resolve(host: string): Promise<string>;
  /** The node's calls: the call's dialogs are routed through it, the work its end leaves is tracked there. */
  calls: Pick<CallRegistry, "addDialog" | "removeDialog" | "remove" | "track">;
  /** Reads the caller ID's attestation (STIR/SHAKEN) for the admission request (absent: not read). */
  identity?: IdentityReader;
  /** The caller never ACKed our 2xx: it counts against its source's call budget (absent: ignored). */
  unacknowledged?(caller: Endpoint): void;
  log(message: string): void;
};

/** The account and token a web dialer's INVITE carried (X-Dialer-Token), for its admission. */
export type DialerClaim = { customerId: string; token: string };

export class Call implements NodeCall {
  readonly signalling: CallSignalling;
  readonly caller: CallerLeg;
  readonly media: CallMedia;
  readonly report: CallReport;
  private readonly credit: CallCredit;
  readonly transfers: CallTransfer;
  readonly timers = new CallTimers();
  readonly onLedger = true;
  private readonly host: CallHost;
  /** Names the call by its SIP Call-ID until admitted, then by the Worker's call id. */
  private log: CallLog;
  /** A web dialer call: the token its INVITE carried and the account it names (null: a carrier's call). */
  private readonly dialer: DialerClaim | null;
  private readonly sipLog: CallSipLog;
  private readonly inDialog: InDialogRequests;
  private callee: OutboundLeg | null = null;
  private current: CallState = "admitting";
  private admission: AdmissionTicket | null = null;
  /** The caller sent CANCEL: the call ends with 487 as soon as that can be done. */
  private cancelled = false;

  constructor(host: CallHost, invite: SipRequest, inviteTx: ServerTransaction, caller: Endpoint, dialer: DialerClaim | null = null) {
    this.host = host;
    this.dialer = dialer;
    this.log = callLog(header(invite, "Call-ID") ?? "", host.log);
    this.report = new CallReport(host.reporter);
    this.signalling = new CallSignalling(host.layer, host.local, this.report);
    this.sipLog = new CallSipLog(host.local);
    this.credit = new CallCredit(this);
    this.media = new CallMedia(host.media, (message) => this.log.warn(message));
    const context = { signalling: this.signalling, timers: this.timers, retransmission: host.layer.timers };
    this.caller = new CallerLeg(context, invite, inviteTx, caller);
    this.inDialog = new InDialogRequests(this);
    this.transfers = new CallTransfer(this);
  }

  get state(): CallState {
    return this.current;
  }

  /** The Worker's admission of the call; null until admitted (and for a refused call). */
  get ticket(): AdmissionTicket | null {
    return this.admission;
  }

  /** Answers 100, asks the Worker to admit the call, then dials the destination. */
  async start(): Promise<void> {
    const { host, caller } = this;
    this.signalling.received(caller.invite, caller.endpoint);
    host.calls.addDialog(this, caller.dialog.callId, caller.dialog.localTag, {
      onRequest: (request, tx, from) => this.inDialog.onRequest("a", request, tx, from),
      onAck: (ack) => this.onCallerAck(ack),
      onRetransmitted2xx: () => {},
    });
    caller.reply(100);
    const request = this.admitRequest();
    // An uncached signer's certificate costs a fetch before admission; a call without a reader is asked for at once.
    const identity = host.identity ? await host.identity.read(caller.invite, request.ani).catch(() => undefined) : undefined;
    const admission = await host.worker.admit(identity ? { ...request, identity } : request).catch((err: unknown) => {
      this.log.warn(`admission failed: ${String(err)}`);
      return null;
    });
    if (!admission) return this.finishUnanswered(503, "admission_unavailable", "platform", false);
    if (admission.decision === "ignore") {
      this.current = "ended";
      caller.tx.terminate();
      host.calls.remove(this);
      return this.endSipLog(null);
    }
    if (admission.decision === "reject") {
      this.refuse(admission);
      this.current = "ended";
      host.calls.remove(this);
      // A refusal the Worker recorded (the account is known) keeps its SIP log too.
      return this.endSipLog(admission.call_id);
    }
    this.admitted(admission);
    if (this.cancelled) return this.finishUnanswered(487, "cancelled", "caller");
    if (!(await this.media.open(admission.call_id, admission.processing !== "relay_only"))) {
      return this.finishUnanswered(503, "no_media_port", "platform");
    }
    if (this.cancelled) return this.finishUnanswered(487, "cancelled", "caller");
    // A web dialer call: werift answers the browser's offer; the destination is offered plain RTP.
    if (this.dialer && !(await this.media.answerBrowser(new TextDecoder().decode(caller.invite.body)))) {
      return this.finishUnanswered(488, "webrtc_offer_refused", "platform");
    }
    if (this.cancelled) return this.finishUnanswered(487, "cancelled", "caller");
    await this.dial();
  }

  private admitRequest(): AdmitRequest {
    const { host, caller, dialer } = this;
    const from = parseNameAddr(header(caller.invite, "From")!);
    const to = parseNameAddr(header(caller.invite, "To")!);
    const customerId = host.accountOf(caller.endpoint.address);
    const ani = callerIdOf(parseUri(from.uri).user);
    return {
      node_id: host.nodeId,
      boot_id: host.bootId,
      ...(dialer
        ? { customer_id: dialer.customerId, dialer_token: dialer.token, origin: "dialer" as const }
        : { ...(customerId ? { customer_id: customerId } : {}), origin: "sip" as const }),
      sip_call_id: caller.dialog.callId,
      src_ip: caller.endpoint.address,
      src_port: caller.endpoint.port,
      ani,
      dialed: parseUri(caller.invite.uri).user ?? parseUri(to.uri).user ?? "",
    };
  }

  /** The Worker refused the call: its final answer names why (Reason, RFC 3326), a screening rule's refusal its rule. */
  private refuse(rejection: AdmissionRejection): void {
    const { caller } = this;
    const response = responseTo(caller.invite, rejection.sip_code, reasonPhrase(rejection.sip_code), caller.dialog.localTag);
    response.headers.push(["Reason", reasonHeader(rejection.sip_code, rejection.reason)]);
    this.signalling.respond(caller.tx, response, caller.endpoint);
  }

  /** The Worker admitted the call: from now on it is named, and reported, by the ticket's call id. */
  private admitted(ticket: AdmissionTicket): void {
    this.admission = ticket;
    this.log = callLog(ticket.call_id, this.host.log);
    this.report.admitted(ticket.call_id, ticket.customer_id);
    this.credit.grant(ticket.granted_seconds);
    this.sipLog.open(() => this.host.media.openSipLog(ticket.call_id));
    if (this.dialer) this.caller.showCallId(ticket.call_id);
  }

  /** The B leg: our INVITE to the ticket's destination, with the caller's offer anchored at the relay. */
  private async dial(): Promise<void> {
    const ticket = this.admission!;
    const destination = ticket.destination;
    const address = await this.host.resolve(destination.host).catch(() => null);
    if (!address) return this.finishUnanswered(502, "destination_unresolvable", "platform");
    if (this.cancelled) return this.finishUnanswered(487, "cancelled", "caller");
    const { invite } = this.caller;
    const from = parseNameAddr(header(invite, "From")!);
    const local = this.host.local;
    this.callee = this.dialCallee(
      {
        callId: newCallId(local),
        localUri: `${from.displayName ? `"${from.displayName}" ` : ""}<sip:${ticket.ani ?? "anonymous"}@${local.address}>`,
        remoteUri: `<sip:${ticket.dialed}@${destination.host}>`,
        remoteTarget: `sip:${ticket.dialed}@${destination.host}${destination.port === 5060 ? "" : `:${destination.port}`}`,
        endpoint: { address, port: destination.port, protocol: destination.transport, serverName: destination.host },
        localSeq: 1,
        auth: destination.auth,
        ringTimeoutMs: this.host.noAnswerMs,
        lateOffer: invite.body.length === 0,
      },
      {
        ringing: (response) => this.calleeRinging(response),
        answered: (response) => this.calleeAnswered(response),
        failed: (response) =>
          response
            ? this.finishUnanswered(response.status, null, "callee", true, response.reason)
            : this.finishUnanswered(408, "destination_timeout", "platform"),
        // Nobody answered in time: the callee is cancelled, the caller hears 480.
        unanswered: () => this.finishUnanswered(480, "no_answer", "platform"),
      },
    );
    this.current = "calling";
    // A call the platform places (the web dialer's) says which account it is for, signed.
    const assertion = ticket.account_assertion;
    this.callee.call({
      body: this.media.offerToCallee(invite.body),
      contentType: this.media.offerType(header(invite, "Content-Type")),
      headers: assertion ? [[PLACED_CALL_ACCOUNT_HEADER, assertion]] : [],
    });
  }

  /** A leg of ours towards the destination (the callee, a transfer's target): the requests inside its dialog are the callee's. */
  dialCallee(target: LegTarget, events: Omit<LegEvents, "request">): OutboundLeg {
    const { calls } = this.host;
    const context = {
      signalling: this.signalling,
      timers: this.timers,
      dialogs: {
        add: (callId: string, localTag: string, dialog: Parameters<CallRegistry["addDialog"]>[3]) =>
          calls.addDialog(this, callId, localTag, dialog),
        remove: (callId: string, localTag: string) => calls.removeDialog(callId, localTag),
      },
    };
    return new OutboundLeg(context, target, { ...events, request: (request, tx, from) => this.inDialog.onRequest("b", request, tx, from) });
  }

  private calleeRinging(response: SipResponse): void {
    if (this.current !== "calling" && this.current !== "early") return;
    this.report.ringing(response.body.length > 0);
    this.current = "early";
    this.caller.reply(response.status, response.reason, this.media.anchor("b", response.body), header(response, "Content-Type"));
  }

  private calleeAnswered(response: SipResponse): void {
    // The caller hung up in the early dialog while the callee's answer was on its way.
    if (this.current !== "calling" && this.current !== "early") return this.callee!.bye();
    this.current = "confirmed";
    this.report.answered(answerCodec(response.body));
    this.credit.answered();
    this.media.watch(() => this.hangUp("media_timeout"));
    this.caller.answer(this.media.anchor("b", response.body), header(response, "Content-Type"), () => {
      this.host.unacknowledged?.(this.caller.endpoint);
      this.hangUpBoth("platform", "no_ack");
    });
    this.timers.after(this.admission!.max_call_seconds * 1000, () => this.hangUpBoth("platform", "max_call_seconds"));
  }

  /** The caller's ACK of our 2xx; for a late offer it brings the answer the callee's ACK carries. */
  private onCallerAck(ack: SipRequest): void {
    this.caller.acked();
    if (this.callee?.holdsAck) this.callee.ackWithAnswer(this.media.anchor("a", ack.body), header(ack, "Content-Type"));
  }

  /**
   * The caller's CANCEL, answered in incoming-cancel.ts: the caller hears 487 and the callee gets
   * CANCEL now, or, while the Worker is still asked, as soon as its answer comes.
   */
  cancelledByCaller(): void {
    this.cancelled = true;
    if (this.current === "calling" || this.current === "early") {
      this.callee!.cancel();
      this.finishUnanswered(487, "cancelled", "caller");
    }
  }

  /** Whether `invite` is the caller's INVITE transaction this call answers. */
  answers(invite: ServerTransaction): boolean {
    return this.caller.tx === invite;
  }

  /** The target of a transfer answered: it takes the old callee's place on the relay's callee side. */
  replaceCallee(leg: OutboundLeg, answer: SipResponse): void {
    const old = this.callee!;
    old.bye();
    old.forget();
    this.callee = leg;
    this.media.anchor("b", answer.body);
  }

  dialogOf(leg: Leg): Dialog | null {
    return leg === "a" ? this.caller.dialog : (this.callee?.dialog ?? null);
  }

  /** The party on `leg` hung up (its BYE was answered): the other leg is hung up too. */
  hungUp(leg: Leg): void {
    if (this.current === "confirmed") {
      if (leg === "a") this.callee!.bye();
      else this.signalling.bye(this.caller.dialog);
    }
    this.finish(leg === "a" ? "caller" : "callee", null);
  }

  /** Ends the call from the platform's side (a hang-up command, a limit). */
  hangUp(reason: string): void {
    if (this.current === "confirmed") this.hangUpBoth("platform", reason);
    else if (this.current === "calling" || this.current === "early") {
      this.callee!.cancel();
      this.finishUnanswered(480, reason, "platform");
    }
  }

  hangUpBoth(by: "platform", reason: string): void {
    if (this.current === "ended") return;
    this.signalling.bye(this.caller.dialog);
    this.callee?.bye();
    this.finish(by, reason);
  }

  /** Ends a call that was never answered: the caller gets `status`, the Worker the end (unless `report` is false). */
  private finishUnanswered(status: number, reason: string | null, by: HangupBy, report = true, phrase?: string): void {
    if (this.current === "ended") return;
    this.caller.reply(status, phrase);
    if (report) return this.finish(by, reason, status);
    this.current = "ended";
    this.host.calls.remove(this);
    this.endSipLog(null);
  }

  private finish(hangupBy: HangupBy, reason: string | null, status = 200): void {
    if (this.current === "ended") return;
    this.current = "ended";
    this.timers.clearAll();
    this.callee?.releaseHeldAck();
    this.host.calls.remove(this);
    const ticket = this.admission;
    this.endSipLog(ticket?.call_id ?? null);
    if (!ticket) return;
    const endedAt = new Date();
    this.host.calls.track(
      this.media.close().then(async (media) => {
        this.report.ended(endedAt, hangupBy, reason, status, media);
        // The relay's files go to the Worker after the end is reported.
        if (media?.files.length) await this.host.media.upload(ticket.call_id, media.files, ticket.customer_id);
      }),
    );
  }

  /**
   * The call's SIP log goes to the Worker once the messages answering its end have come; `callId`
   * names the call the Worker recorded (a refused call's too), and a call it never recorded keeps none.
   */
  private endSipLog(callId: string | null): void {
    if (!callId) return this.sipLog.discard();
    this.sipLog.open(() => this.host.media.openSipLog(callId));
    // A refused call has no ticket: its account is the one whose whitelist range holds the caller.
    const customerId = this.admission?.customer_id ?? this.host.accountOf(this.caller.endpoint.address);
    this.host.calls.track(
      this.sipLog
        .end(() => this.signalling.unanswered)
        .then((file) => file && this.host.media.upload(callId, [file], customerId))
        .catch((err: unknown) => this.log.warn(`sip log: ${String(err)}`)),
    );
  }

  renewCredit(atMs: number): void {
    this.host.renewCredit(atMs);
  }

  /** The call ledger's grant: talk seconds the credit covers now (only a larger one counts). */
  grant(seconds: number): void {
    this.credit.grant(seconds);
  }

  /** A transfer ordered through the Worker, for an answered call (see CallTransfer). */
  transfer(target: string, mode: "platform" | "refer"): { status: "in_progress" } {
    return this.transfers.start(target, mode);
  }

  /** Whether `peer` is this call's caller (same address, port and transport). */
  isCaller(peer: Endpoint): boolean {
    const caller = this.caller.endpoint;
    return caller.protocol === peer.protocol && caller.port === peer.port && caller.address === peer.address;
  }

  claims(request: SipRequest): boolean {
    return this.caller.claims(request);
  }

  /** A message of one of the call's Call-IDs on the wire, for its SIP log. */
  onWire(direction: "in" | "out", message: SipMessage, bytes: Uint8Array | null, peer: Endpoint): void {
    this.sipLog.record(direction, message, bytes, peer);
  }

  /** Live media of the call, for the inspector. */
  mediaStats() {
    return this.media.stats();
  }

  /** The call's ladder so far, for the inspector. */
  ladder() {
    return this.report.ladderSoFar();
  }
}

/** The voice codec of the callee's SDP (the answer, or its offer in a late offer), for the report. */
function answerCodec(body: Uint8Array): string | null {
  if (body.length === 0) return null;
  const sdp = new TextDecoder().decode(body);
  const media = parseSdpAudio(sdp);
  return media ? firstCodec(media, sdp) : null;
}
