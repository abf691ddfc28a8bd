// One call through the B2BUA as its parts share it: the caller's leg (A) and the destination's
// leg (B, with our own Call-ID and tags), the admission ticket, the media relay and the call's
// timers; and what every part does with them: requests and responses on either leg, SDP bodies
// anchored at the relay, and the end of the call. The parts: CallSetup (admission, dialling,
// answer, CANCEL), CallDialog (in-dialog requests, BYE, ACKs), CallTransfer (REFER, bridging),
// CallReport (the ladder and the events reported to the Worker), CallCredit (the talk time the
// credit covers) and CallSipLog (every message of the call, written to its sip-log.jsonl and
// handed over after the end).
import { CallTimers } from "./call-timers.ts";
import { randomBytes } from "node:crypto";
import type { AdmissionTicket } from "../../schema/node-api.ts";
import type { MediaRelay, MediaSummary, Side } from "../media/relay.ts";
import { firstCodec, parseSdpAudio, rewriteSdp } from "../media/sdp.ts";
import { header, setHeader } from "../sip/headers.ts";
import type { SipMessage, SipRequest, SipResponse } from "../sip/message.ts";
import { BRANCH_MAGIC, responseTo, type ServerTransaction } from "../sip/transactions.ts";
import type { Endpoint } from "../sip/transport.ts";
import { reasonPhrase } from "./causes.ts";
import { callLog, type CallLog } from "./call-log.ts";
import { CallCredit } from "./call-credit.ts";
import { CallDialog } from "./call-dialog.ts";
import { CallReport, type HangupBy } from "./call-report.ts";
import type { CallSession, Leg, SessionHost } from "./call-session.ts";
import { CallSetup } from "./call-setup.ts";
import { CallSipLog } from "./call-sip-log.ts";
import { CallTransfer } from "./call-transfer.ts";
import type { WebRtcLeg } from "../webrtc/webrtc-leg.ts";

/** The account and token a web dialer's INVITE carried (X-Dialer-Token), for its admission. */
export type DialerClaim = { customerId: string; token: string };
/** On the responses to a web dialer's INVITE: the call's id, linking to its record. */
export const DIALER_CALL_ID_HEADER = "X-Call-Id";

export type CallState = "admitting" | "calling" | "early" | "confirmed" | "ended";

/** One leg's dialog, as we keep it to send requests inside it. */
export type Dialog = {
  callId: string;
  localTag: string;
  remoteTag: string | null;
  localUri: string;
  remoteUri: string;
  remoteTarget: string;
  endpoint: Endpoint;
  localSeq: number;
};

const token = (bytes = 8) => randomBytes(bytes).toString("hex");
const newBranch = () => `${BRANCH_MAGIC}${token(10)}`;
const sideOf = (leg: Leg): Side => (leg === "a" ? "caller" : "callee");
const EMPTY = new Uint8Array(0);
type Address = { address: string; port: number };

export class Call {
  /** What the B2BUA holds of this call (its dialogs are registered under it). */
  readonly session: CallSession;
  readonly host: SessionHost;
  readonly invite: SipRequest;
  readonly inviteTx: ServerTransaction;
  readonly caller: Endpoint;
  readonly report: CallReport;
  readonly credit: CallCredit;
  readonly sipLog: CallSipLog;
  readonly setup: CallSetup;
  readonly dialog: CallDialog;
  readonly transfers: CallTransfer;
  /** Names the call by its SIP Call-ID until admitted, then by the Worker's call id. */
  log: CallLog;
  state: CallState = "admitting";
  ticket: AdmissionTicket | null = null;
  relay: MediaRelay | null = null;
  /** A web dialer call: the token its INVITE carried and the account it names (null: a carrier's call). */
  readonly dialer: DialerClaim | null;
  /** A web dialer call's WebRTC media, speaking for the browser on the relay's caller side. */
  webrtc: WebRtcLeg | null = null;
  /** The caller's leg, set as the call starts. */
  a!: Dialog;
  /** The destination's leg, from the moment we dial it. */
  b: Dialog | null = null;
  /** Our INVITE on the B leg: its CSeq and Via for our ACK and CANCEL. */
  bInvite: SipRequest | null = null;
  /** The SDP offer the callee got (anchored at our relay): a platform transfer offers it again. */
  offerToB: Uint8Array = EMPTY;
  private readonly timers = new CallTimers();
  /** Our requests still awaiting a final answer (the SIP log waits for them after the end). */
  private unanswered = 0;

  constructor(
    session: CallSession,
    host: SessionHost,
    invite: SipRequest,
    inviteTx: ServerTransaction,
    caller: Endpoint,
    dialer: DialerClaim | null = null,
  ) {
    this.session = session;
    this.dialer = dialer;
    this.host = host;
    this.invite = invite;
    this.inviteTx = inviteTx;
    this.caller = caller;
    this.log = callLog(header(invite, "Call-ID") ?? "", host.log);
    this.report = new CallReport(host.reporter);
    this.credit = new CallCredit(this);
    this.sipLog = new CallSipLog(host.local);
    this.setup = new CallSetup(this);
    this.dialog = new CallDialog(this);
    this.transfers = new CallTransfer(this);
  }

  /** The Worker admitted the call: from now on it is named, and reported, by the ticket's call id. */
  admitted(ticket: AdmissionTicket): void {
    this.ticket = ticket;
    this.log = callLog(ticket.call_id, this.host.log);
    this.report.admitted(ticket.call_id, ticket.customer_id);
    this.credit.grant(ticket.granted_seconds);
    this.sipLog.open(() => this.host.media.openSipLog(ticket.call_id));
  }

  /** A fresh tag of ours for a dialog. */
  newTag(): string {
    return token();
  }

  /** A fresh Call-ID of ours, for a leg we originate. */
  newCallId(): string {
    return `${token(12)}@${this.host.local.address}`;
  }

  dialogOf(leg: Leg): Dialog | null {
    return leg === "a" ? this.a : this.b;
  }

  /** A timer of this call: the call's end clears every one still pending. */
  after(ms: number, fn: () => void): ReturnType<typeof setTimeout> {
    return this.timers.after(ms, fn);
  }

  clearTimer(timer: ReturnType<typeof setTimeout> | null): void {
    this.timers.clear(timer);
  }

  /** Ends the call from the platform's side (a hang-up command, a limit). */
  hangUp(reason: string): void {
    if (this.state === "confirmed") this.hangUpBoth("platform", reason);
    else if (this.state === "calling" || this.state === "early") {
      this.setup.cancelB();
      this.finishUnanswered(480, reason, "platform");
    }
  }

  hangUpBoth(by: "platform", reason: string): void {
    if (this.state === "ended") return;
    this.dialog.bye("a");
    this.dialog.bye("b");
    this.finish(by, reason);
  }

  /** Ends a call that was never answered: the caller gets `status`, the Worker the end. */
  finishUnanswered(status: number, reason: string | null, by: HangupBy, report = true, phrase?: string): void {
    if (this.state === "ended") return;
    this.replyToA(status, phrase);
    if (report) this.finish(by, reason, status);
    else {
      this.state = "ended";
      this.host.unregister(this.session);
      this.endSipLog(null);
    }
  }

  finish(hangupBy: HangupBy, reason: string | null, status = 200): void {
    if (this.state === "ended") return;
    this.state = "ended";
    this.timers.clearAll();
    this.dialog.releaseHeldAck();
    this.host.unregister(this.session);
    const ticket = this.ticket;
    this.endSipLog(ticket?.call_id ?? null);
    if (!ticket) return;
    const endedAt = new Date();
    this.host.track(
      this.closeMedia().then(async (media) => {
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
  endSipLog(callId: string | null): void {
    if (!callId) return this.sipLog.discard();
    this.sipLog.open(() => this.host.media.openSipLog(callId));
    // A refused call has no ticket: its account is the one whose whitelist range holds the caller.
    const customerId = this.ticket?.customer_id ?? this.host.accountOf(this.caller.address);
    this.host.track(
      this.sipLog
        .end(() => this.unanswered)
        .then((file) => file && this.host.media.upload(callId, [file], customerId))
        .catch((err: unknown) => this.log.warn(`sip log: ${String(err)}`)),
    );
  }

  private async closeMedia(): Promise<MediaSummary | null> {
    const relay = this.relay;
    this.relay = null;
    const webrtc = this.webrtc;
    this.webrtc = null;
    await webrtc?.close().catch((err: unknown) => this.log.warn(`webrtc: ${String(err)}`));
    if (!relay) return null;
    return this.host.media.close(relay).catch((err: unknown) => {
      this.log.warn(`media: ${String(err)}`);
      return null;
    });
  }

  /**
   * An SDP body from one leg, on its way to the other: tells the relay where that party wants
   * its RTP and rewrites the connection to the relay's port facing the other party.
   */
  anchor(from: Leg, body: Uint8Array): Uint8Array {
    if (body.length === 0 || !this.relay) return body;
    // The browser's WebRTC leg stands for it on the relay: the destination's SDP tells it the law, the browser keeps its answer.
    if (from === "b" && this.webrtc) {
      this.webrtc.destinationAnswered(body);
      this.anchorPlain(from, body);
      return new TextEncoder().encode(this.webrtc.answerSdp);
    }
    return this.anchorPlain(from, body);
  }

  private anchorPlain(from: Leg, body: Uint8Array): Uint8Array {
    if (!this.relay) return body;
    const sdp = new TextDecoder().decode(body);
    const media = parseSdpAudio(sdp);
    if (!media) return body;
    this.relay.setRemote(sideOf(from), media, firstCodec(media, sdp));
    const towards: Side = from === "a" ? "callee" : "caller";
    return new TextEncoder().encode(rewriteSdp(sdp, this.relay.publicAddress, this.relay.localPort(towards)));
  }

  /** A response to the caller's INVITE, sent through its server transaction. */
  replyToA(status: number, reason?: string, body?: Uint8Array, contentType?: string | null): void {
    const response = this.responseToA(status, reason ?? reasonPhrase(status), body, contentType);
    this.inviteTx.respond(response);
    this.record("out", response, this.host.local, this.caller);
  }

  responseToA(status: number, reason: string, body?: Uint8Array, contentType?: string | null): SipResponse {
    const response = responseTo(this.invite, status, reason, status === 100 ? undefined : this.a.localTag);
    // The web dialer shows the call's id, which links to its record.
    if (this.dialer && this.ticket && status > 100) setHeader(response.headers, DIALER_CALL_ID_HEADER, this.ticket.call_id);
    if (status >= 180 && status < 300) setHeader(response.headers, "Contact", this.contact(this.caller.protocol));
    if (body && body.length > 0) {
      response.body = body;
      if (contentType) setHeader(response.headers, "Content-Type", contentType);
    }
    return response;
  }

  /** Answers a request one leg sent inside its dialog. */
  respond(tx: ServerTransaction, request: SipRequest, status: number, leg: Leg): void {
    const response = responseTo(request, status, reasonPhrase(status), this.dialogOf(leg)!.localTag);
    tx.respond(response);
  }

  contact(protocol: Endpoint["protocol"] = "udp"): string {
    const transport = protocol === "udp" ? "" : `;transport=${protocol}`;
    return `<sip:${this.host.local.address}:${this.host.local.port}${transport}>`;
  }

  /** A request we originate inside one leg's dialog. */
  requestOn(dialog: Dialog, method: string, uri: string, body: Uint8Array, seq?: number): SipRequest {
    const cseq = seq ?? (method === "ACK" ? dialog.localSeq : ++dialog.localSeq);
    const transport = dialog.endpoint.protocol.toUpperCase();
    const localUri = dialog.localUri.includes(";tag=") ? dialog.localUri : `${dialog.localUri};tag=${dialog.localTag}`;
    const remoteUri =
      dialog.remoteTag && !dialog.remoteUri.includes(";tag=") ? `${dialog.remoteUri};tag=${dialog.remoteTag}` : dialog.remoteUri;
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

  /** Sends a request in a client transaction (recorded in the ladder). */
  send(request: SipRequest, to: Endpoint, onResponse: (response: SipResponse | null) => void): void {
    this.record("out", request, this.host.local, to);
    this.unanswered++;
    this.host.layer.sendRequest(request, to, (response) => {
      if (!response || response.status >= 200) this.unanswered--;
      onResponse(response);
    });
  }

  record(direction: "in" | "out", message: SipMessage, from: Address, to: Address): void {
    this.report.record(direction, message, from, to);
  }
}
