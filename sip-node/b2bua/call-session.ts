// One call through the B2BUA: the caller's leg (A), admission, the destination's leg (B) with
// our own Call-ID and tags, responses relayed, in-dialog requests passed across, the end
// reported to the Worker with the ladder of both legs.
import { randomBytes } from "node:crypto";
import type { AdmissionTicket, CallEvent, SipLogMessage } from "../../schema/node-api.ts";
import { header, setHeader } from "../sip/headers.ts";
import type { SipMessage, SipRequest, SipResponse } from "../sip/message.ts";
import { parseCSeq, parseNameAddr, parseUri } from "../sip/parser.ts";
import { digestAuthorization, parseChallenge } from "../sip/digest-client.ts";
import { BRANCH_MAGIC, responseTo, type ServerTransaction, type TransactionLayer } from "../sip/transactions.ts";
import type { Endpoint } from "../sip/transport.ts";
import type { WorkerClient } from "../control/worker-client.ts";
import type { MediaEngine } from "../media/engine.ts";
import type { MediaRelay, MediaSummary, Side } from "../media/relay.ts";
import { firstCodec, parseSdpAudio, rewriteSdp } from "../media/sdp.ts";
import { q850Of, reasonPhrase } from "./causes.ts";

export type SessionHost = {
  layer: TransactionLayer;
  worker: WorkerClient;
  media: MediaEngine;
  nodeId: string;
  noAnswerMs: number;
  /** Our address for Via and Contact. */
  local: { address: string; port: number };
  resolve(host: string): Promise<string>;
  register(callId: string, localTag: string, session: CallSession, leg: Leg): void;
  /** A dialog of this call that ended while the call goes on (the callee replaced by a transfer). */
  unregisterDialog(callId: string, localTag: string): void;
  unregister(session: CallSession): void;
  log(message: string): void;
};

export type Leg = "a" | "b";

const token = (bytes = 8) => randomBytes(bytes).toString("hex");
const newBranch = () => `${BRANCH_MAGIC}${token(10)}`;
const MAX_LADDER = 200;
const sideOf = (leg: Leg): Side => (leg === "a" ? "caller" : "callee");

type Dialog = {
  callId: string;
  localTag: string;
  remoteTag: string | null;
  localUri: string;
  remoteUri: string;
  remoteTarget: string;
  endpoint: Endpoint;
  localSeq: number;
};

export class CallSession {
  readonly host: SessionHost;
  readonly invite: SipRequest;
  readonly inviteTx: ServerTransaction;
  readonly caller: Endpoint;
  readonly receivedAt = Date.now();
  ticket: AdmissionTicket | null = null;
  private state: "admitting" | "calling" | "early" | "confirmed" | "ended" = "admitting";
  private a!: Dialog;
  private b: Dialog | null = null;
  private bInvite: SipRequest | null = null;
  private cancelled = false;
  private authTried = false;
  private ringingAt: number | null = null;
  private answeredAt: number | null = null;
  private earlyMedia = false;
  private codec: string | null = null;
  private awaitingAck = false;
  private okTimer: ReturnType<typeof setTimeout> | null = null;
  private limitTimer: ReturnType<typeof setTimeout> | null = null;
  private noAnswerTimer: ReturnType<typeof setTimeout> | null = null;
  private readonly ladder: SipLogMessage[] = [];
  private relay: MediaRelay | null = null;
  /** Late offer: the caller's INVITE had no SDP, so its ACK carries the answer the callee needs. */
  private pendingAckToB: SipRequest | null = null;
  private lastAckToB: SipRequest | null = null;
  private reports: Promise<void> = Promise.resolve();
  /** The SDP offer the callee got (anchored at our relay): a platform transfer offers it again. */
  private offerToB: Uint8Array = new Uint8Array(0);
  /** The target of a transfer under way, until it completes or fails. */
  private transferTarget: string | null = null;

  constructor(host: SessionHost, invite: SipRequest, inviteTx: ServerTransaction, caller: Endpoint) {
    this.host = host;
    this.invite = invite;
    this.inviteTx = inviteTx;
    this.caller = caller;
  }

  async start(): Promise<void> {
    this.record("in", this.invite, this.caller, this.host.local);
    const from = parseNameAddr(header(this.invite, "From")!);
    const to = parseNameAddr(header(this.invite, "To")!);
    const contact = header(this.invite, "Contact");
    this.a = {
      callId: header(this.invite, "Call-ID")!,
      localTag: token(),
      remoteTag: from.tag,
      localUri: header(this.invite, "To")!,
      remoteUri: header(this.invite, "From")!,
      remoteTarget: contact ? parseNameAddr(contact).uri : from.uri,
      endpoint: this.caller,
      localSeq: 1,
    };
    this.inviteTx.onCancel = () => this.cancelFromCaller();
    this.host.register(this.a.callId, this.a.localTag, this, "a");
    this.replyToA(100);

    const requestUri = parseUri(this.invite.uri);
    const admission = await this.host.worker
      .admit({
        node_id: this.host.nodeId,
        sip_call_id: this.a.callId,
        src_ip: this.caller.address,
        src_port: this.caller.port,
        ani: parseUri(from.uri).user ?? null,
        dialed: requestUri.user ?? parseUri(to.uri).user ?? "",
        origin: "sip",
      })
      .catch((err: unknown) => {
        this.host.log(`admission failed for ${this.a.callId}: ${String(err)}`);
        return null;
      });
    if (!admission) return this.finishUnanswered(503, "admission_unavailable", "platform", false);
    if (admission.decision === "ignore") {
      this.state = "ended";
      this.inviteTx.terminate();
      this.host.unregister(this);
      return;
    }
    if (admission.decision === "reject") {
      this.replyToA(admission.sip_code);
      this.state = "ended";
      this.host.unregister(this);
      return;
    }
    this.ticket = admission;
    if (this.cancelled) return this.finishUnanswered(487, "cancelled", "caller");
    const recorded = admission.processing !== "relay_only";
    this.relay = await this.host.media.open(admission.call_id, { record: recorded, capture: recorded }).catch((err: unknown) => {
      this.host.log(`no media for ${admission.call_id}: ${String(err)}`);
      return null;
    });
    if (!this.relay) return this.finishUnanswered(503, "no_media_port", "platform");
    if (this.cancelled) return this.finishUnanswered(487, "cancelled", "caller");
    await this.callDestination();
  }

  private async callDestination(): Promise<void> {
    const ticket = this.ticket!;
    const destination = ticket.destination;
    const address = await this.host.resolve(destination.host).catch(() => null);
    if (!address) return this.finishUnanswered(502, "destination_unresolvable", "platform");
    const target = `sip:${ticket.dialed}@${destination.host}${destination.port === 5060 ? "" : `:${destination.port}`}`;
    const from = parseNameAddr(header(this.invite, "From")!);
    this.b = {
      callId: `${token(12)}@${this.host.local.address}`,
      localTag: token(),
      remoteTag: null,
      localUri: `${from.displayName ? `"${from.displayName}" ` : ""}<sip:${ticket.ani ?? "anonymous"}@${this.host.local.address}>`,
      remoteUri: `<sip:${ticket.dialed}@${destination.host}>`,
      remoteTarget: target,
      endpoint: { address, port: destination.port, protocol: destination.transport, serverName: destination.host },
      localSeq: 1,
    };
    this.host.register(this.b.callId, this.b.localTag, this, "b");
    this.state = "calling";
    this.sendInviteToB();
    this.noAnswerTimer = setTimeout(() => this.giveUpRinging(), this.host.noAnswerMs);
  }

  /** Nobody answered in time: cancel the destination, tell the caller 480. */
  private giveUpRinging(): void {
    if (this.state !== "calling" && this.state !== "early") return;
    this.cancelB();
    this.finishUnanswered(480, "no_answer", "platform");
  }

  private sendInviteToB(authorization?: [string, string]): void {
    const b = this.b!;
    const request = this.requestOn(b, "INVITE", b.remoteTarget, this.anchor("a", this.invite.body));
    const type = header(this.invite, "Content-Type");
    if (type) setHeader(request.headers, "Content-Type", type);
    if (authorization) request.headers.push(authorization);
    this.bInvite = request;
    this.offerToB = request.body;
    this.send(request, b.endpoint, (response) => this.onInviteResponse(response));
  }

  private onInviteResponse(response: SipResponse | null): void {
    if (this.state === "ended") return;
    if (!response) return this.finishUnanswered(408, "destination_timeout", "platform");
    this.record("in", response, this.b!.endpoint, this.host.local);
    const status = response.status;
    if (status === 100) return;
    if (status < 200) {
      this.b!.remoteTag ??= parseNameAddr(header(response, "To")!).tag;
      // The call is "ringing" from its admission; when ringing began travels in the end report (pdd_ms).
      this.ringingAt ??= Date.now();
      if (response.body.length > 0) this.earlyMedia = true;
      this.state = "early";
      this.replyToA(status, response.reason, this.anchor("b", response.body), header(response, "Content-Type"));
      return;
    }
    if (status < 300) return this.answered(response);
    if ((status === 401 || status === 407) && !this.authTried && this.ticket?.destination.auth) {
      this.authTried = true;
      const challenge = parseChallenge(header(response, status === 401 ? "WWW-Authenticate" : "Proxy-Authenticate") ?? "");
      const value = challenge && digestAuthorization(challenge, this.ticket.destination.auth, "INVITE", this.b!.remoteTarget);
      if (value) return this.sendInviteToB([status === 401 ? "Authorization" : "Proxy-Authorization", value]);
    }
    this.finishUnanswered(status, null, this.cancelled ? "caller" : "callee", true, response.reason);
  }

  private answered(response: SipResponse): void {
    if (this.noAnswerTimer) clearTimeout(this.noAnswerTimer);
    const b = this.b!;
    b.remoteTag = parseNameAddr(header(response, "To")!).tag;
    const contact = header(response, "Contact");
    if (contact) b.remoteTarget = parseNameAddr(contact).uri;
    // We end the B leg's INVITE at once with its ACK (RFC 3261 §13.2.2.4), unless the ACK must
    // carry the caller's answer to an offer the callee made in this 200 (late offer).
    const ack = this.requestOn(b, "ACK", b.remoteTarget, new Uint8Array(0), parseCSeq(header(this.bInvite!, "CSeq")!).seq);
    const lateOffer = this.invite.body.length === 0 && response.body.length > 0 && !this.cancelled;
    if (lateOffer) this.pendingAckToB = ack;
    else this.sendAckToB(ack);
    if (this.cancelled) {
      // The caller gave up as the callee answered: hang the callee up.
      this.bye("b");
      return this.finishUnanswered(487, "cancelled", "caller");
    }
    this.answeredAt = Date.now();
    this.state = "confirmed";
    this.codec = codecOf(response.body);
    void this.report({ type: "answered", at: new Date(this.answeredAt).toISOString(), codec: this.codec });
    this.host.media.watch(this.relay!, () => this.hangUp("media_timeout"));
    const ok = this.responseToA(200, "OK", this.anchor("b", response.body), header(response, "Content-Type"));
    this.inviteTx.respond(ok);
    this.record("out", ok, this.host.local, this.caller);
    this.retransmitOk(ok);
    const limit = this.ticket!.max_call_seconds * 1000;
    this.limitTimer = setTimeout(() => this.hangUpBoth("platform", "max_call_seconds"), limit);
  }

  /** The 2xx to the caller is ours to retransmit until the ACK (RFC 3261 §13.3.1.4). */
  private retransmitOk(ok: SipResponse): void {
    const { T1, T2 } = this.host.layer.timers;
    let interval = T1;
    let elapsed = 0;
    const tick = () => {
      if (!this.awaitingAck) return;
      elapsed += interval;
      if (elapsed >= 64 * T1) return this.hangUpBoth("platform", "no_ack");
      this.host.layer.sendStateless(ok, this.caller);
      interval = Math.min(interval * 2, T2);
      this.okTimer = setTimeout(tick, interval);
    };
    this.awaitingAck = true;
    if (this.caller.protocol === "udp") this.okTimer = setTimeout(tick, interval);
  }

  onAck(leg: Leg, ack: SipRequest): void {
    if (leg === "a" && this.awaitingAck) {
      this.awaitingAck = false;
      if (this.okTimer) clearTimeout(this.okTimer);
    }
    if (leg === "a" && this.pendingAckToB) {
      const toB = this.pendingAckToB;
      this.pendingAckToB = null;
      toB.body = this.anchor("a", ack.body);
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
    if (this.lastAckToB && !this.pendingAckToB) this.host.layer.sendStateless(this.lastAckToB, this.b!.endpoint);
  }

  private sendAckToB(ack: SipRequest): void {
    this.lastAckToB = ack;
    this.host.layer.sendStateless(ack, this.b!.endpoint);
    this.record("out", ack, this.host.local, this.b!.endpoint);
  }

  /** A request inside the dialog of one leg: BYE ends the call; others pass to the other leg. */
  onInDialogRequest(request: SipRequest, tx: ServerTransaction, leg: Leg, from: Endpoint): void {
    this.record("in", request, from, this.host.local);
    if (request.method === "BYE") {
      this.respond(tx, request, 200, leg);
      const other: Leg = leg === "a" ? "b" : "a";
      if (this.state === "confirmed") this.bye(other);
      return this.finish(leg === "a" ? "caller" : "callee", null);
    }
    if (request.method === "NOTIFY" && leg === "a" && this.transferTarget && /^refer\b/i.test(header(request, "Event") ?? "")) {
      return this.onReferProgress(request, tx);
    }
    const otherDialog = leg === "a" ? this.b : this.a;
    if (!otherDialog || this.state === "ended") return this.respond(tx, request, 481, leg);
    // re-INVITE, UPDATE, INFO and the like pass through, their SDP anchored at our relay.
    const other: Leg = leg === "a" ? "b" : "a";
    const forwarded = this.requestOn(otherDialog, request.method, otherDialog.remoteTarget, this.anchor(leg, request.body));
    const type = header(request, "Content-Type");
    if (type) setHeader(forwarded.headers, "Content-Type", type);
    this.send(forwarded, otherDialog.endpoint, (response) => {
      if (!response) return this.respond(tx, request, 408, leg);
      this.record("in", response, otherDialog.endpoint, this.host.local);
      if (request.method === "INVITE" && response.status >= 200 && response.status < 300) {
        const ack = this.requestOn(otherDialog, "ACK", otherDialog.remoteTarget, new Uint8Array(0), parseCSeq(header(forwarded, "CSeq")!).seq);
        this.host.layer.sendStateless(ack, otherDialog.endpoint);
      }
      const relayed = responseTo(request, response.status, response.reason, (leg === "a" ? this.a : this.b!).localTag);
      relayed.body = this.anchor(other, response.body);
      const rtype = header(response, "Content-Type");
      if (rtype) setHeader(relayed.headers, "Content-Type", rtype);
      setHeader(relayed.headers, "Contact", this.contact(from.protocol));
      tx.respond(relayed);
      this.record("out", relayed, this.host.local, from);
    });
  }

  private cancelFromCaller(): void {
    this.cancelled = true;
    if (this.state === "calling" || this.state === "early") {
      this.cancelB();
      // The caller hears 487 now; the destination's 487 (or a racing 200) is handled as it comes.
      this.finishUnanswered(487, "cancelled", "caller");
    }
  }

  /** CANCEL for the destination's INVITE: same Request-URI, Via and CSeq number (RFC 3261 §9.1). */
  private cancelB(): void {
    const b = this.b!;
    const invite = this.bInvite!;
    const cancel: SipRequest = {
      kind: "request",
      method: "CANCEL",
      uri: invite.uri,
      version: "SIP/2.0",
      headers: [
        ["Via", header(invite, "Via")!],
        ["Max-Forwards", "70"],
        ["From", header(invite, "From")!],
        ["To", header(invite, "To")!],
        ["Call-ID", b.callId],
        ["CSeq", `${parseCSeq(header(invite, "CSeq")!).seq} CANCEL`],
      ],
      body: new Uint8Array(0),
    };
    this.send(cancel, b.endpoint, () => {});
  }

  /**
   * A transfer ordered through the Worker, for an answered call. `platform`: we call the target at
   * the same destination and, once it answers, hang up the old callee; the caller keeps talking to
   * our relay, so it needs no re-INVITE. `refer`: we ask the caller's side to call the target
   * (REFER, RFC 3515) and follow its NOTIFYs. The outcome is reported as a transfer event.
   */
  transfer(target: string, mode: "platform" | "refer"): { status: "in_progress" } {
    if (this.state !== "confirmed") throw new Error("only a call that is up can be transferred");
    if (this.transferTarget) throw new Error("a transfer of this call is already under way");
    if (mode === "platform" && this.offerToB.length === 0) throw new Error("the caller made no SDP offer to bridge a new callee to");
    this.transferTarget = target;
    if (mode === "refer") this.referCaller(target);
    else void this.bridgeTo(target);
    return { status: "in_progress" };
  }

  private async bridgeTo(target: string): Promise<void> {
    const destination = this.ticket!.destination;
    const old = this.b!;
    const dialed = `${destination.tech_prefix ?? ""}${target}`;
    const c: Dialog = {
      ...old,
      callId: `${token(12)}@${this.host.local.address}`,
      localTag: token(),
      remoteTag: null,
      remoteUri: `<sip:${dialed}@${destination.host}>`,
      remoteTarget: `sip:${dialed}@${destination.host}${destination.port === 5060 ? "" : `:${destination.port}`}`,
      localSeq: 1,
    };
    const invite = this.requestOn(c, "INVITE", c.remoteTarget, this.offerToB);
    setHeader(invite.headers, "Content-Type", "application/sdp");
    this.host.register(c.callId, c.localTag, this, "b");
    this.send(invite, c.endpoint, (response) => this.onTransferAnswer(c, invite, response));
  }

  private onTransferAnswer(c: Dialog, invite: SipRequest, response: SipResponse | null): void {
    if (response) this.record("in", response, c.endpoint, this.host.local);
    if (response && response.status < 200) return;
    if (!response || response.status >= 300 || this.state !== "confirmed") {
      this.host.unregisterDialog(c.callId, c.localTag);
      if (response && response.status < 300) this.hangUpLateAnswer(c, invite, response);
      return this.transferDone("platform", "failed", response?.status ?? 408);
    }
    c.remoteTag = parseNameAddr(header(response, "To")!).tag;
    const contact = header(response, "Contact");
    if (contact) c.remoteTarget = parseNameAddr(contact).uri;
    const ack = this.sendAckTo(c, invite);
    // The old callee goes; the new one takes its place on the relay's callee side.
    const old = this.b!;
    this.bye("b");
    this.host.unregisterDialog(old.callId, old.localTag);
    this.b = c;
    this.bInvite = invite;
    this.lastAckToB = ack;
    this.anchor("b", response.body);
    this.transferDone("platform", "completed", response.status);
  }

  /** A transfer target that answered after the call ended: ACK it and hang it up. */
  private hangUpLateAnswer(c: Dialog, invite: SipRequest, response: SipResponse): void {
    c.remoteTag = parseNameAddr(header(response, "To")!).tag;
    this.sendAckTo(c, invite);
    const bye = this.requestOn(c, "BYE", c.remoteTarget, new Uint8Array(0));
    this.send(bye, c.endpoint, () => {});
  }

  private sendAckTo(dialog: Dialog, invite: SipRequest): SipRequest {
    const ack = this.requestOn(dialog, "ACK", dialog.remoteTarget, new Uint8Array(0), parseCSeq(header(invite, "CSeq")!).seq);
    this.host.layer.sendStateless(ack, dialog.endpoint);
    this.record("out", ack, this.host.local, dialog.endpoint);
    return ack;
  }

  private referCaller(target: string): void {
    const a = this.a;
    const refer = this.requestOn(a, "REFER", a.remoteTarget, new Uint8Array(0));
    refer.headers.push(["Refer-To", `<sip:${target}@${this.caller.address}>`], ["Referred-By", this.contact(this.caller.protocol)]);
    this.send(refer, a.endpoint, (response) => {
      if (response) this.record("in", response, a.endpoint, this.host.local);
      if (response && response.status < 200) return;
      if (!response || response.status >= 300) return this.transferDone("refer", "failed", response?.status ?? 408);
      void this.report({ type: "transfer", at: new Date().toISOString(), target, mode: "refer", status: "accepted", code: response.status });
    });
  }

  /** The caller's NOTIFY about our REFER: its body is the status line of the call it placed. */
  private onReferProgress(request: SipRequest, tx: ServerTransaction): void {
    this.respond(tx, request, 200, "a");
    const code = Number(/^SIP\/2\.0 (\d{3})/.exec(new TextDecoder().decode(request.body))?.[1] ?? 0);
    if (code >= 200) this.transferDone("refer", code < 300 ? "completed" : "failed", code);
  }

  private transferDone(mode: "platform" | "refer", status: "completed" | "failed", code: number): void {
    const target = this.transferTarget;
    this.transferTarget = null;
    if (target) void this.report({ type: "transfer", at: new Date().toISOString(), target, mode, status, code });
  }

  /** Ends the call from the platform's side (a hang-up command, a limit). */
  hangUp(reason: string): void {
    if (this.state === "confirmed") this.hangUpBoth("platform", reason);
    else if (this.state === "calling" || this.state === "early") {
      this.cancelB();
      this.finishUnanswered(480, reason, "platform");
    }
  }

  private hangUpBoth(by: "platform", reason: string): void {
    if (this.state === "ended") return;
    this.bye("a");
    this.bye("b");
    this.finish(by, reason);
  }

  private bye(leg: Leg): void {
    const dialog = leg === "a" ? this.a : this.b;
    if (!dialog) return;
    const request = this.requestOn(dialog, "BYE", dialog.remoteTarget, new Uint8Array(0));
    this.send(request, dialog.endpoint, (response) => {
      if (response) this.record("in", response, dialog.endpoint, this.host.local);
    });
  }

  /** Ends a call that was never answered: the caller gets `status`, the Worker the end. */
  private finishUnanswered(status: number, reason: string | null, by: "caller" | "callee" | "platform", report = true, phrase?: string): void {
    if (this.state === "ended") return;
    this.replyToA(status, phrase);
    if (report) this.finish(by, reason, status);
    else {
      this.state = "ended";
      this.host.unregister(this);
    }
  }

  private finish(hangupBy: "caller" | "callee" | "platform", reason: string | null, status = 200): void {
    if (this.state === "ended") return;
    this.state = "ended";
    for (const timer of [this.limitTimer, this.okTimer, this.noAnswerTimer]) if (timer) clearTimeout(timer);
    if (this.pendingAckToB) this.sendAckToB(this.pendingAckToB);
    this.host.unregister(this);
    if (!this.ticket) return;
    const endedAt = new Date();
    void this.closeMedia().then((media) => this.reportEnd(endedAt, hangupBy, reason, status, media));
  }

  /** Closes the relay; its files go to the Worker after the end is reported. */
  private async closeMedia(): Promise<MediaSummary | null> {
    const relay = this.relay;
    this.relay = null;
    if (!relay) return null;
    return this.host.media.close(relay).catch((err: unknown) => {
      this.host.log(`media of ${this.ticket?.call_id}: ${String(err)}`);
      return null;
    });
  }

  private async reportEnd(endedAt: Date, hangupBy: "caller" | "callee" | "platform", reason: string | null, status: number, media: MediaSummary | null) {
    const finalStatus = this.answeredAt ? 200 : status;
    await this.report({
      type: "ended",
      at: endedAt.toISOString(),
      answered_at: this.answeredAt ? new Date(this.answeredAt).toISOString() : null,
      sip_code: finalStatus,
      hangup_by: hangupBy,
      q850_cause: q850Of(finalStatus),
      end_reason: reason,
      pdd_ms: this.ringingAt ? this.ringingAt - this.receivedAt : null,
      answer_delay_ms: this.answeredAt ? this.answeredAt - (this.ringingAt ?? this.receivedAt) : null,
      early_media: this.earlyMedia,
      codec: this.codec,
      ladder: this.ladder,
      ...(media && {
        media_ip: media.media_ip,
        mos: media.mos,
        jitter_ms: media.jitter_ms,
        packet_loss_pct: media.packet_loss_pct,
        qos: media.qos,
        dtmf: media.dtmf,
      }),
    });
    if (media?.files.length) await this.host.media.upload(this.ticket!.call_id, media.files);
  }

  /** Posts an event after the ones before it have been answered, so the Worker sees them in order. */
  private report(event: CallEvent): Promise<void> {
    const callId = this.ticket?.call_id;
    if (!callId) return Promise.resolve();
    this.reports = this.reports.then(() =>
      this.host.worker.event(callId, event).then(
        () => {},
        (err: unknown) => this.host.log(`event ${event.type} for ${callId}: ${String(err)}`),
      ),
    );
    return this.reports;
  }

  /** Live media of the call for the inspector. */
  mediaStats() {
    return this.relay?.stats() ?? null;
  }

  /**
   * An SDP body from one leg, on its way to the other: tells the relay where that party wants
   * its RTP and rewrites the connection to the relay's port facing the other party.
   */
  private anchor(from: Leg, body: Uint8Array): Uint8Array {
    if (body.length === 0 || !this.relay) return body;
    const sdp = new TextDecoder().decode(body);
    const media = parseSdpAudio(sdp);
    if (!media) return body;
    this.relay.setRemote(sideOf(from), media, firstCodec(media, sdp));
    const towards: Side = from === "a" ? "callee" : "caller";
    return new TextEncoder().encode(rewriteSdp(sdp, this.relay.publicAddress, this.relay.localPort(towards)));
  }

  private replyToA(status: number, reason?: string, body?: Uint8Array, contentType?: string | null): void {
    const response = this.responseToA(status, reason ?? reasonPhrase(status), body, contentType);
    this.inviteTx.respond(response);
    this.record("out", response, this.host.local, this.caller);
  }

  private responseToA(status: number, reason: string, body?: Uint8Array, contentType?: string | null): SipResponse {
    const response = responseTo(this.invite, status, reason, status === 100 ? undefined : this.a.localTag);
    if (status >= 180 && status < 300) setHeader(response.headers, "Contact", this.contact(this.caller.protocol));
    if (body && body.length > 0) {
      response.body = body;
      if (contentType) setHeader(response.headers, "Content-Type", contentType);
    }
    return response;
  }

  private respond(tx: ServerTransaction, request: SipRequest, status: number, leg: Leg): void {
    const response = responseTo(request, status, reasonPhrase(status), (leg === "a" ? this.a : this.b!).localTag);
    tx.respond(response);
  }

  private contact(protocol: Endpoint["protocol"] = "udp"): string {
    const transport = protocol === "udp" ? "" : `;transport=${protocol}`;
    return `<sip:${this.host.local.address}:${this.host.local.port}${transport}>`;
  }

  /** A request we originate inside one leg's dialog. */
  private requestOn(dialog: Dialog, method: string, uri: string, body: Uint8Array, seq?: number): SipRequest {
    const cseq = seq ?? (method === "ACK" ? dialog.localSeq : ++dialog.localSeq);
    const transport = dialog.endpoint.protocol.toUpperCase();
    const localUri = dialog.localUri.includes(";tag=") ? dialog.localUri : `${dialog.localUri};tag=${dialog.localTag}`;
    const remoteUri = dialog.remoteTag && !dialog.remoteUri.includes(";tag=") ? `${dialog.remoteUri};tag=${dialog.remoteTag}` : dialog.remoteUri;
    return {
      kind: "request",
      method,
      uri,
      version: "SIP/2.0",
      headers: [
        ["Via", `SIP/2.0/${transport} ${this.host.local.address}:${this.host.local.port};branch=${newBranch()};rport`],
        ["Max-Forwards", "70"],
        ["From", localUri],
        ["To", remoteUri],
        ["Call-ID", dialog.callId],
        ["CSeq", `${cseq} ${method}`],
        ["Contact", this.contact(dialog.endpoint.protocol)],
        ["User-Agent", "call-shield"],
      ],
      body,
    };
  }

  private send(request: SipRequest, to: Endpoint, onResponse: (response: SipResponse | null) => void): void {
    this.record("out", request, this.host.local, to);
    this.host.layer.sendRequest(request, to, onResponse);
  }

  private record(direction: "in" | "out", message: SipMessage, from: { address: string; port: number }, to: { address: string; port: number }): void {
    if (this.ladder.length >= MAX_LADDER) return;
    const cseq = header(message, "CSeq");
    this.ladder.push({
      time_stamp: new Date().toISOString(),
      direction,
      method: message.kind === "request" ? message.method : (cseq ? parseCSeq(cseq).method : ""),
      status: message.kind === "response" ? `${message.status} ${message.reason}` : null,
      fromip: `${from.address}:${from.port}`,
      toip: `${to.address}:${to.port}`,
      fromtag: tagOf(header(message, "From")),
      totag: tagOf(header(message, "To")),
      first_line: message.kind === "request" ? `${message.method} ${message.uri} SIP/2.0` : `SIP/2.0 ${message.status} ${message.reason}`,
    });
  }
}

const tagOf = (value: string | null) => (value ? (/;\s*tag=([^;>\s]+)/i.exec(value)?.[1] ?? null) : null);

/** The first codec of an SDP answer's first m= line (e.g. "PCMU"). */
function codecOf(body: Uint8Array): string | null {
  if (body.length === 0) return null;
  const sdp = new TextDecoder().decode(body);
  const media = /^m=audio \d+ [^ ]+ (\d+)/m.exec(sdp);
  if (!media) return null;
  const pt = media[1]!;
  const rtpmap = new RegExp(`^a=rtpmap:${pt} ([^/\\s]+)`, "m").exec(sdp);
  if (rtpmap) return rtpmap[1]!;
  return ({ "0": "PCMU", "8": "PCMA", "9": "G722", "18": "G729" } as Record<string, string>)[pt] ?? null;
}

