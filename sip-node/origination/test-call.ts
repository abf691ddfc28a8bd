// One test call the node places itself: admitted through the Worker like any call (origin
// "test"), an INVITE as the UAC to the ticket's destination (its digest challenge answered once),
// ringing, and on answer the announcement and speech sample as paced RTP through a media relay
// whose caller side is the node itself (so the call is recorded, captured and measured like any
// call), then BYE. Its call events go to the call reporter as a B2BUA call's do, so the ledger
// charges it; its progress (dialing, ringing, answered, then done, failed or cancelled) goes to
// the Worker's test call.
import { CallTimers } from "../b2bua/call-timers.ts";
import { PLACED_CALL_ACCOUNT_HEADER, type AdmissionTicket, type OriginateCommand } from "../../schema/node-api.ts";
import type { OriginatedDialog } from "../b2bua/b2bua.ts";
import { CallCredit } from "../b2bua/call-credit.ts";
import { callLog, type CallLog } from "../b2bua/call-log.ts";
import { CallReport } from "../b2bua/call-report.ts";
import { CallSipLog } from "../b2bua/call-sip-log.ts";
import { reasonPhrase } from "../b2bua/causes.ts";
import type { CallReporter } from "../control/call-reporter.ts";
import type { WorkerClient } from "../control/worker-client.ts";
import type { MediaEngine } from "../media/engine.ts";
import type { MediaRelay, MediaSummary } from "../media/relay.ts";
import { digestAuthorization, parseChallenge } from "../sip/digest-client.ts";
import { header } from "../sip/headers.ts";
import type { SipMessage, SipRequest, SipResponse } from "../sip/message.ts";
import { parseCSeq, parseNameAddr } from "../sip/parser.ts";
import { responseTo, type ServerTransaction, type TransactionLayer } from "../sip/transactions.ts";
import type { Endpoint } from "../sip/transport.ts";
import { AgentLeg } from "./agent-leg.ts";
import { failure, finalProgress, type Outcome } from "./outcome.ts";
import { RtpPlayer } from "./player.ts";
import type { ProgressPoster, ProgressStep } from "./progress.ts";
import { programFor } from "./samples.ts";
import { readAnswer, sdpOffer, type Answer } from "./sdp-offer.ts";
import { newTag, requestOn, type UacDialog } from "./uac-dialog.ts";
import { cancelOf } from "../sip/cancel.ts";

/** What a test call needs of the node. */
export type OriginationHost = {
  layer: Pick<TransactionLayer, "sendRequest" | "sendStateless">;
  worker: Pick<WorkerClient, "admit">;
  reporter: Pick<CallReporter, "report">;
  progress: Pick<ProgressPoster, "post">;
  media: Pick<MediaEngine, "open" | "watch" | "close" | "upload" | "openSipLog">;
  nodeId: string;
  bootId: string;
  /** Our address for Via, Contact and the admission's src_ip. */
  local: { address: string; port: number };
  resolve(host: string): Promise<string>;
  /** Requests inside the dialog with Call-ID `callId`, and its messages on the wire, go to `dialog` from now on. */
  register(callId: string, dialog: OriginatedDialog): void;
  /** The dialog ended (its late messages still reach it a little longer). */
  unregisterDialog(callId: string): void;
  /** The call is over (its reports and uploads may still be under way). */
  ended(call: TestCall): void;
  /** Asks for a report to the call ledger by `atMs` (the covered talk time runs out soon after). */
  renewCredit(atMs: number): void;
  /** Work the call still does after its end (progress, reports, uploads): a draining node waits for it. */
  track(work: Promise<unknown>): void;
  log(message: string): void;
};

type State = "admitting" | "calling" | "early" | "confirmed" | "ended";
export class TestCall {
  readonly command: OriginateCommand;
  readonly host: OriginationHost;
  readonly report: CallReport;
  readonly credit: CallCredit;
  private readonly sipLog: CallSipLog;
  log: CallLog;
  state: State = "admitting";
  ticket: AdmissionTicket | null = null;
  relay: MediaRelay | null = null;
  private dialog: UacDialog | null = null;
  private invite: SipRequest | null = null;
  private lastAck: SipRequest | null = null;
  private player: RtpPlayer | null = null;
  /** Voice-agent mode: the agent's leg, dialled once the number answers. */
  private agent: AgentLeg | null = null;
  /** Set while admitting: how the call ends once admitted (a cancel or hang-up came first). */
  private endWhenAdmitted: Outcome | null = null;
  private authTried = false;
  private answeredAt: number | null = null;
  private readonly timers = new CallTimers();
  /** Our requests still awaiting a final answer (the SIP log waits for them after the end). */
  private unanswered = 0;

  constructor(host: OriginationHost, command: OriginateCommand) {
    this.host = host;
    this.command = command;
    this.log = callLog(command.sip_call_id, host.log);
    this.report = new CallReport(host.reporter);
    this.credit = new CallCredit(this);
    this.sipLog = new CallSipLog(host.local);
  }

  get testCallId(): string {
    return this.command.test_call_id;
  }

  /** Admits the call through the Worker, opens its media and sends the INVITE. */
  async start(): Promise<void> {
    const { host, command } = this;
    this.progress({ status: "dialing" });
    const admission = await host.worker
      .admit({
        node_id: host.nodeId,
        boot_id: host.bootId,
        sip_call_id: command.sip_call_id,
        src_ip: host.local.address,
        src_port: host.local.port,
        ani: command.caller_id,
        dialed: command.number,
        origin: "test",
        test_call_id: command.test_call_id,
      })
      .catch((err: unknown) => {
        this.log.warn(`admission failed: ${String(err)}`);
        return null;
      });
    if (!admission || admission.decision === "ignore") {
      return this.end({ ...failure(503, "admission_unavailable"), error: admission ? "not admitted" : "admission_unavailable" });
    }
    if (admission.decision === "reject") {
      this.progress({
        status: "failed",
        call_id: admission.call_id,
        answered: false,
        sip_code: admission.sip_code,
        sip_reason: admission.reason,
      });
      return this.end(null);
    }
    this.admitted(admission);
    if (this.endWhenAdmitted) return this.end(this.endWhenAdmitted);
    if (command.agent_destination_id && !admission.agent_destination) return this.end(failure(503, "no_agent_destination"));
    const recorded = admission.processing !== "relay_only";
    this.relay = await host.media.open(admission.call_id, { record: recorded, capture: recorded }).catch((err: unknown) => {
      this.log.warn(`no media: ${String(err)}`);
      return null;
    });
    if (!this.relay) return this.end(failure(503, "no_media_port"));
    // The node speaks for the caller's side, unless a voice agent is to be bridged there.
    if (!admission.agent_destination) this.relay.speakAs("caller");
    if (this.endWhenAdmitted) return this.end(this.endWhenAdmitted);
    await this.dial();
  }

  private admitted(ticket: AdmissionTicket): void {
    this.ticket = ticket;
    this.log = callLog(ticket.call_id, this.host.log);
    this.credit.grant(ticket.granted_seconds);
    // A verification call leaves no record: nothing reported, logged or uploaded.
    if (!this.keepsRecord) return;
    this.report.admitted(ticket.call_id, ticket.customer_id);
    this.sipLog.open(() => this.host.media.openSipLog(ticket.call_id));
  }

  /** Whether the Worker keeps a record of the call (every call but a verification call). */
  get keepsRecord(): boolean {
    return this.ticket?.call_record !== false;
  }

  /** The call's id as its progress names it: none for a call the Worker keeps no record of. */
  private get recordId(): string | null {
    return this.keepsRecord ? (this.ticket?.call_id ?? null) : null;
  }

  private async dial(): Promise<void> {
    const ticket = this.ticket!;
    const destination = ticket.destination;
    const address = await this.host.resolve(destination.host).catch(() => null);
    if (this.state === "ended") return;
    if (this.endWhenAdmitted) return this.end(this.endWhenAdmitted);
    if (!address) return this.end(failure(502, "destination_unresolvable"));
    const port = destination.port === 5060 ? "" : `:${destination.port}`;
    this.dialog = {
      callId: this.command.sip_call_id,
      localTag: newTag(),
      remoteTag: null,
      localUri: `<sip:${ticket.ani ?? this.command.caller_id}@${this.host.local.address}>`,
      remoteUri: `<sip:${ticket.dialed}@${destination.host}>`,
      remoteTarget: `sip:${ticket.dialed}@${destination.host}${port}`,
      endpoint: { address, port: destination.port, protocol: destination.transport, serverName: destination.host },
      localSeq: 0,
    };
    this.host.register(this.dialog.callId, {
      localTag: this.dialog.localTag,
      onInDialogRequest: (request, tx, from) => this.onInDialogRequest(request, tx, from),
      onRetransmitted2xx: () => this.onRetransmitted2xx(),
      onWire: (direction, message, bytes, peer) => this.onWire(direction, message, bytes, peer),
    });
    this.state = "calling";
    this.sendInvite();
    this.after(this.command.ring_timeout_seconds * 1000, () => this.giveUpRinging());
  }

  private sendInvite(authorization?: [string, string]): void {
    const dialog = this.dialog!;
    const request = requestOn(dialog, this.host.local, "INVITE", sdpOffer(this.relay!.publicAddress, this.relay!.localPort("callee")));
    const assertion = this.ticket!.account_assertion;
    if (assertion) request.headers.push([PLACED_CALL_ACCOUNT_HEADER, assertion]);
    if (authorization) request.headers.push(authorization);
    this.invite = request;
    this.send(request, this.dialog!.endpoint, (response) => this.onInviteResponse(request, response));
  }

  private onInviteResponse(request: SipRequest, response: SipResponse | null): void {
    if (response) this.record("in", response);
    if (this.state === "ended") {
      // A 2xx that crossed our CANCEL still opened a dialog: ACK it and hang up.
      if (response && response.status >= 200 && response.status < 300) {
        this.acknowledge(request, response);
        this.bye();
      }
      return;
    }
    if (request !== this.invite) return;
    if (!response) return this.end({ ...failure(408, "destination_timeout"), endedBy: "timeout" });
    const status = response.status;
    if (status === 100) return;
    if (status < 200) return this.ringing(response);
    if (status < 300) return this.answered(request, response);
    const auth = this.ticket!.destination.auth;
    if ((status === 401 || status === 407) && !this.authTried && auth) {
      this.authTried = true;
      const challenge = parseChallenge(header(response, status === 401 ? "WWW-Authenticate" : "Proxy-Authenticate") ?? "");
      const value = challenge && digestAuthorization(challenge, auth, "INVITE", this.dialog!.remoteTarget);
      if (value) return this.sendInvite([status === 401 ? "Authorization" : "Proxy-Authorization", value]);
    }
    this.end({ status: "failed", sipCode: status, sipReason: response.reason, reason: null, hangupBy: "callee", endedBy: "callee" });
  }

  private ringing(response: SipResponse): void {
    this.dialog!.remoteTag ??= parseNameAddr(header(response, "To") ?? "").tag;
    this.report.ringing(response.body.length > 0);
    if (this.state === "calling") {
      this.state = "early";
      this.progress({ status: "ringing", call_id: this.recordId });
    }
  }

  private answered(request: SipRequest, response: SipResponse): void {
    const dialog = this.dialog!;
    dialog.remoteTag = parseNameAddr(header(response, "To") ?? "").tag;
    const contact = header(response, "Contact");
    if (contact) dialog.remoteTarget = parseNameAddr(contact).uri;
    this.acknowledge(request, response);
    const answer = readAnswer(response.body);
    if (!answer) {
      this.bye();
      return this.end({ ...failure(488, "no_common_codec"), sipReason: "Not Acceptable Here" });
    }
    const relay = this.relay!;
    relay.setRemote("callee", answer.media, answer.codec);
    this.state = "confirmed";
    this.answeredAt = Date.now();
    this.report.answered(answer.codec);
    this.credit.answered();
    this.host.media.watch(relay, () => this.hangUp("media_timeout"));
    this.progress({ status: "answered", call_id: this.recordId, answered: true, sip_code: 200 });
    this.after(this.ticket!.max_call_seconds * 1000, () => this.hangUpBoth("platform", "max_call_seconds"));
    const agent = this.ticket!.agent_destination;
    if (agent) return this.bridgeAgent(agent, answer);
    const player = new RtpPlayer(programFor(this.command), answer.law, answer.payloadType, (packet) => relay.send("caller", packet));
    this.player = player;
    player.start();
    void player.done.then(() => this.hangUpBoth("platform", "test_call_done"));
  }

  /**
   * Voice-agent mode: the agent is dialled at the relay's caller side, offered the law the number
   * chose (the relay passes packets unchanged); the conversation lasts `seconds` at most.
   */
  private bridgeAgent(target: NonNullable<AdmissionTicket["agent_destination"]>, numberAnswer: Answer): void {
    const relay = this.relay!;
    const { command } = this;
    this.agent = new AgentLeg(this, target, {
      testCallId: command.test_call_id,
      number: command.number,
      instruction: command.instruction,
      accountAssertion: this.ticket!.account_assertion,
    });
    void this.agent.dial(sdpOffer(relay.publicAddress, relay.localPort("caller"), numberAnswer));
    this.after(command.seconds * 1000, () => this.hangUpBoth("platform", "test_call_done"));
  }

  /** The agent answered: the relay bridges it to the number. */
  agentAnswered(answer: Answer): void {
    this.relay?.setRemote("caller", answer.media, answer.codec);
  }

  /** The agent could not be reached: the number, already answered, is hung up and the test call fails. */
  agentFailed(status: number, reason: string): void {
    if (this.state !== "confirmed") return;
    this.bye();
    this.end({
      status: "failed",
      sipCode: 200,
      reason: "agent_failed",
      hangupBy: "platform",
      endedBy: "platform",
      error: `agent_failed: ${status} ${reason}`.slice(0, 200),
    });
  }

  /** The agent hung up: so does the number, and the test call is done. */
  agentHungUp(): void {
    if (this.state !== "confirmed") return;
    this.bye();
    this.end({ status: "done", sipCode: 200, reason: "agent_hangup", hangupBy: "platform", endedBy: "platform" });
  }

  /** Our ACK of the callee's 2xx (RFC 3261 §13.2.2.4), kept to send again if the 2xx comes back. */
  private acknowledge(request: SipRequest, response: SipResponse): void {
    const dialog = this.dialog!;
    dialog.remoteTag ??= parseNameAddr(header(response, "To") ?? "").tag;
    const ack = requestOn(dialog, this.host.local, "ACK", undefined, parseCSeq(header(request, "CSeq")!).seq);
    this.lastAck = ack;
    this.host.layer.sendStateless(ack, dialog.endpoint);
    this.record("out", ack);
  }

  /** The callee's 2xx came again after our INVITE transaction ended: our ACK was lost. */
  onRetransmitted2xx(): void {
    if (this.lastAck) this.host.layer.sendStateless(this.lastAck, this.dialog!.endpoint);
  }

  /** A request the callee sent inside the dialog: BYE ends the call, others are answered. */
  onInDialogRequest(request: SipRequest, tx: ServerTransaction, from: Endpoint): void {
    this.record("in", request, from);
    const respond = (status: number, body?: Uint8Array) => {
      const response = responseTo(request, status, reasonPhrase(status), this.dialog?.localTag);
      if (body) {
        response.body = body;
        response.headers.push(["Content-Type", "application/sdp"]);
        const transport = from.protocol === "udp" ? "" : `;transport=${from.protocol}`;
        response.headers.push(["Contact", `<sip:${this.host.local.address}:${this.host.local.port}${transport}>`]);
      }
      tx.respond(response);
      this.record("out", response, from);
    };
    if (request.method === "BYE") {
      respond(200);
      if (this.state === "confirmed") {
        this.end({ status: "done", sipCode: 200, reason: null, hangupBy: "callee", endedBy: "callee" });
      }
      return;
    }
    if (this.state === "ended") return respond(481);
    if (request.method === "INVITE") {
      // A re-INVITE (a session refresh, a new address): its offer is taken, ours stays as it was.
      const answer = readAnswer(request.body);
      if (request.body.length > 0 && !answer) return respond(488);
      if (answer) this.relay?.setRemote("callee", answer.media, answer.codec);
      return respond(200, sdpOffer(this.relay!.publicAddress, this.relay!.localPort("callee")));
    }
    respond(["UPDATE", "INFO", "OPTIONS", "NOTIFY"].includes(request.method) ? 200 : 501);
  }

  /** A message of the call on the wire, for its SIP log. */
  onWire(direction: "in" | "out", message: SipMessage, bytes: Uint8Array | null, peer: Endpoint): void {
    this.sipLog.record(direction, message, bytes, peer);
  }

  /** Nobody answered within the ring timeout: CANCEL, and the test call fails (408, ended by timeout). */
  private giveUpRinging(): void {
    if (this.state !== "calling" && this.state !== "early") return;
    this.sendCancel();
    this.end({ ...failure(408, "no_answer"), sipReason: "No Answer", endedBy: "timeout" });
  }

  /** cancel_test_call: CANCEL before the answer, BYE after; false when the call is over already. */
  cancel(): boolean {
    if (this.state === "ended") return false;
    const outcome: Outcome = { status: "cancelled", sipCode: 487, reason: "cancelled", hangupBy: "platform", endedBy: "cancel" };
    if (this.state === "admitting") this.endWhenAdmitted = outcome;
    else if (this.state === "confirmed") {
      this.bye();
      this.end({ ...outcome, sipCode: 200 });
    } else {
      this.sendCancel();
      this.end(outcome);
    }
    return true;
  }

  /** Ends the call from the platform's side (a hang-up command, the ledger, a drain, silence). */
  hangUp(reason: string): void {
    if (this.state === "confirmed") return this.hangUpBoth("platform", reason);
    const outcome = { ...failure(487, reason), sipReason: reasonPhrase(487) };
    if (this.state === "admitting") this.endWhenAdmitted = outcome;
    else if (this.state === "calling" || this.state === "early") {
      this.sendCancel();
      this.end(outcome);
    }
  }

  /** Ends an answered call with our BYE: done when the sample was played (or the cap reached), failed otherwise. */
  hangUpBoth(_by: "platform", reason: string): void {
    if (this.state !== "confirmed") return;
    this.bye();
    const done = reason === "test_call_done" || reason === "max_call_seconds";
    this.end({
      status: done ? "done" : "failed",
      sipCode: 200,
      reason,
      hangupBy: "platform",
      endedBy: "platform",
      error: done ? null : reason,
    });
  }

  private sendCancel(): void {
    if (this.invite && this.dialog) this.send(cancelOf(this.invite), this.dialog.endpoint, () => {});
  }

  private bye(): void {
    const dialog = this.dialog;
    if (!dialog?.remoteTag) return;
    this.send(requestOn(dialog, this.host.local, "BYE"), dialog.endpoint, (response) => response && this.record("in", response));
  }

  /** The end: final progress, the call's end reported with its media, its files handed over. `null`: already told. */
  private end(outcome: Outcome | null): void {
    if (this.state === "ended") return;
    this.state = "ended";
    this.timers.clearAll();
    this.player?.stop();
    this.agent?.hangUp();
    if (this.dialog) this.host.unregisterDialog(this.dialog.callId);
    this.host.ended(this);
    const endedAt = new Date();
    const ticket = this.ticket;
    if (outcome) {
      this.progress(finalProgress(outcome, this.recordId, this.answeredAt, endedAt));
    }
    if (!ticket || !this.keepsRecord) {
      this.sipLog.discard();
      this.host.track(this.closeMedia());
      return;
    }
    this.host.track(
      this.sipLog
        .end(() => this.unanswered)
        .then((file) => file && this.host.media.upload(ticket.call_id, [file], ticket.customer_id))
        .catch((err: unknown) => this.log.warn(`sip log: ${String(err)}`)),
    );
    const reported = outcome ?? failure(500, null);
    this.host.track(
      this.closeMedia().then(async (media) => {
        this.report.ended(endedAt, reported.hangupBy, reported.reason, reported.sipCode, media);
        if (media?.files.length) await this.host.media.upload(ticket.call_id, media.files, ticket.customer_id);
      }),
    );
  }

  private async closeMedia(): Promise<MediaSummary | null> {
    const relay = this.relay;
    this.relay = null;
    if (!relay) return null;
    return this.host.media.close(relay).catch((err: unknown) => {
      this.log.warn(`media: ${String(err)}`);
      return null;
    });
  }

  private progress(step: ProgressStep): void {
    this.host.track(this.host.progress.post(this.testCallId, step));
  }

  /** Sends a request of the call (either dialog) in a client transaction (recorded in the ladder). */
  send(request: SipRequest, to: Endpoint, onResponse: (response: SipResponse | null) => void): void {
    this.record("out", request, to);
    this.unanswered++;
    this.host.layer.sendRequest(request, to, (response) => {
      if (!response || response.status >= 200) this.unanswered--;
      onResponse(response);
    });
  }

  record(direction: "in" | "out", message: SipMessage, peer: Endpoint | null = this.dialog?.endpoint ?? null): void {
    if (!peer) return;
    const local = this.host.local;
    this.report.record(direction, message, direction === "in" ? peer : local, direction === "in" ? local : peer);
  }

  /** A timer of this call: the end clears every one still pending. */
  after(ms: number, fn: () => void): ReturnType<typeof setTimeout> {
    return this.timers.after(ms, fn);
  }

  clearTimer(timer: ReturnType<typeof setTimeout> | null): void {
    this.timers.clear(timer);
  }

  /** The call's live media, for the inspector. */
  mediaStats() {
    return this.relay?.stats() ?? null;
  }

  /** The call's ladder so far (the requests and answers recorded), for the inspector. */
  ladder() {
    return this.report.ladderSoFar();
  }
}
