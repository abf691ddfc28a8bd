// One test call the node places itself: admitted through the Worker like any call (origin
// "test"), an outbound leg to the ticket's destination, ringing, and on answer the announcement
// and speech sample as paced RTP through a media relay whose caller side is the node itself (so
// the call is recorded, captured and measured like any call), then BYE. Its call events go to the
// call reporter as a B2BUA call's do, so the ledger charges it; its progress (dialing, ringing,
// answered, then done, failed or cancelled) goes to the Worker's test call. A verification call is
// a test call the Worker keeps no record of (ticket call_record false).
import { PLACED_CALL_ACCOUNT_HEADER, type AdmissionTicket, type OriginateCommand } from "../../schema/node-api.ts";
import { CallCredit } from "../calls/call-credit.ts";
import { callLog, type CallLog } from "../calls/call-log.ts";
import { CallReport } from "../calls/call-report.ts";
import { CallSignalling } from "../calls/call-signalling.ts";
import { CallSipLog } from "../calls/call-sip-log.ts";
import { CallTimers } from "../calls/call-timers.ts";
import { contactOf, responseIn } from "../calls/dialog.ts";
import { OutboundLeg, type LegContext } from "../calls/outbound-leg.ts";
import type { CallRegistry, NodeCall } from "../calls/registry.ts";
import type { CallReporter } from "../control/call-reporter.ts";
import type { WorkerClient } from "../control/worker-client.ts";
import type { MediaEngine } from "../media/engine.ts";
import type { MediaRelay, MediaSummary } from "../media/relay.ts";
import { reasonPhrase } from "../sip/causes.ts";
import { setHeader } from "../sip/headers.ts";
import type { SipMessage, SipRequest, SipResponse } from "../sip/message.ts";
import type { ServerTransaction, TransactionLayer } from "../sip/transactions.ts";
import type { Endpoint } from "../sip/transport.ts";
import { AgentLeg } from "./agent-leg.ts";
import { failure, finalProgress, type Outcome } from "./outcome.ts";
import { RtpPlayer } from "./player.ts";
import type { ProgressPoster, ProgressStep } from "./progress.ts";
import { programFor } from "./samples.ts";
import { readAnswer, sdpOffer, type Answer } from "./sdp-offer.ts";

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
  /** The node's calls: the call's dialogs are routed through it, the work its end leaves is tracked there. */
  calls: Pick<CallRegistry, "addDialog" | "removeDialog" | "remove" | "track">;
  /** Asks for a report to the call ledger by `atMs` (the covered talk time runs out soon after). */
  renewCredit(atMs: number): void;
  log(message: string): void;
};

type State = "admitting" | "calling" | "early" | "confirmed" | "ended";

export class TestCall implements NodeCall {
  readonly command: OriginateCommand;
  readonly report: CallReport;
  readonly credit: CallCredit;
  readonly timers = new CallTimers();
  log: CallLog;
  state: State = "admitting";
  ticket: AdmissionTicket | null = null;
  private readonly host: OriginationHost;
  private readonly signalling: CallSignalling;
  private readonly sipLog: CallSipLog;
  private relay: MediaRelay | null = null;
  private leg: OutboundLeg | null = null;
  private player: RtpPlayer | null = null;
  /** Voice-agent mode: the agent's leg, dialled once the number answers. */
  private agent: AgentLeg | null = null;
  /** Set while admitting: how the call ends once admitted (a cancel or hang-up came first). */
  private endWhenAdmitted: Outcome | null = null;
  private answeredAt: number | null = null;
  /** When our (first) INVITE went: post-dial and answer delays count from here. */
  private invitedAt: number | null = null;

  constructor(host: OriginationHost, command: OriginateCommand) {
    this.host = host;
    this.command = command;
    this.log = callLog(command.sip_call_id, host.log);
    this.report = new CallReport(host.reporter);
    this.credit = new CallCredit(this);
    this.signalling = new CallSignalling(host.layer, host.local, this.report);
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

  /** A verification call is unknown to the ledger: naming it live would have it ended as unknown. */
  get onLedger(): boolean {
    return this.keepsRecord;
  }

  /** The call's id as its progress names it: none for a call the Worker keeps no record of. */
  private get recordId(): string | null {
    return this.keepsRecord ? (this.ticket?.call_id ?? null) : null;
  }

  /** The leg's dialogs are this call's: their requests, ACKs and 2xx retransmissions come here. */
  private legContext(): LegContext & { signalling: CallSignalling } {
    const { calls } = this.host;
    return {
      signalling: this.signalling,
      timers: this.timers,
      dialogs: {
        add: (callId, localTag, dialog) => calls.addDialog(this, callId, localTag, dialog),
        remove: (callId, localTag) => calls.removeDialog(callId, localTag),
      },
    };
  }

  private async dial(): Promise<void> {
    const ticket = this.ticket!;
    const destination = ticket.destination;
    const address = await this.host.resolve(destination.host).catch(() => null);
    if (this.state === "ended") return;
    if (this.endWhenAdmitted) return this.end(this.endWhenAdmitted);
    if (!address) return this.end(failure(502, "destination_unresolvable"));
    const port = destination.port === 5060 ? "" : `:${destination.port}`;
    this.leg = new OutboundLeg(
      this.legContext(),
      {
        callId: this.command.sip_call_id,
        localUri: `<sip:${ticket.ani ?? this.command.caller_id}@${this.host.local.address}>`,
        remoteUri: `<sip:${ticket.dialed}@${destination.host}>`,
        remoteTarget: `sip:${ticket.dialed}@${destination.host}${port}`,
        endpoint: { address, port: destination.port, protocol: destination.transport, serverName: destination.host },
        auth: destination.auth,
        ringTimeoutMs: this.command.ring_timeout_seconds * 1000,
      },
      {
        ringing: (response) => this.ringing(response),
        answered: (response) => this.answered(response),
        failed: (response) =>
          this.end(
            response
              ? {
                  status: "failed",
                  sipCode: response.status,
                  sipReason: response.reason,
                  reason: null,
                  hangupBy: "callee",
                  endedBy: "callee",
                }
              : { ...failure(408, "destination_timeout"), endedBy: "timeout" },
          ),
        // Nobody answered within the ring timeout: the leg sent CANCEL; the test call fails (408, ended by timeout).
        unanswered: () => this.end({ ...failure(408, "no_answer"), sipReason: "No Answer", endedBy: "timeout" }),
        request: (request, tx, from) => this.onInDialogRequest(request, tx, from),
      },
    );
    this.state = "calling";
    this.invitedAt = Date.now();
    const assertion = ticket.account_assertion;
    this.leg.call({
      body: sdpOffer(this.relay!.publicAddress, this.relay!.localPort("callee")),
      contentType: "application/sdp",
      headers: assertion ? [[PLACED_CALL_ACCOUNT_HEADER, assertion]] : [],
    });
  }

  private ringing(response: SipResponse): void {
    this.report.ringing(response.body.length > 0);
    if (this.state === "calling") {
      this.state = "early";
      this.progress({ status: "ringing", call_id: this.recordId, post_dial_ms: this.sinceInvite() });
    }
  }

  private answered(response: SipResponse): void {
    const answer = readAnswer(response.body);
    if (!answer) {
      this.leg!.bye();
      return this.end({ ...failure(488, "no_common_codec"), sipReason: "Not Acceptable Here" });
    }
    const relay = this.relay!;
    relay.setRemote("callee", answer.media, answer.codec);
    this.state = "confirmed";
    this.answeredAt = Date.now();
    this.report.answered(answer.codec);
    this.credit.answered();
    this.host.media.watch(relay, () => this.hangUp("media_timeout"));
    this.progress({ status: "answered", call_id: this.recordId, answered: true, sip_code: 200, answer_ms: this.sinceInvite() });
    this.timers.after(this.ticket!.max_call_seconds * 1000, () => this.hangUpBoth("platform", "max_call_seconds"));
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
    this.agent = new AgentLeg(
      { ...this.legContext(), resolve: (host) => this.host.resolve(host) },
      target,
      {
        testCallId: command.test_call_id,
        number: command.number,
        instruction: command.instruction,
        accountAssertion: this.ticket!.account_assertion,
      },
      {
        // The agent answered: the relay bridges it to the number.
        answered: (answer) => this.relay?.setRemote("caller", answer.media, answer.codec),
        failed: (status, reason) =>
          this.agentGone({ ...failure(200, "agent_failed"), error: `agent_failed: ${status} ${reason}`.slice(0, 200) }),
        hungUp: () => this.agentGone({ status: "done", sipCode: 200, reason: "agent_hangup", hangupBy: "platform", endedBy: "platform" }),
      },
    );
    void this.agent.dial(sdpOffer(relay.publicAddress, relay.localPort("caller"), numberAnswer));
    this.timers.after(command.seconds * 1000, () => this.hangUpBoth("platform", "test_call_done"));
  }

  /** The agent could not be reached, or hung up: the number, already answered, is hung up too. */
  private agentGone(outcome: Outcome): void {
    if (this.state !== "confirmed") return;
    this.leg!.bye();
    this.end(outcome);
  }

  /** A request the callee sent inside the dialog: BYE ends the call, others are answered. */
  private onInDialogRequest(request: SipRequest, tx: ServerTransaction, from: Endpoint): void {
    this.signalling.received(request, from);
    const respond = (status: number, body?: Uint8Array) => {
      const response = responseIn(this.leg!.dialog, request, status);
      if (body) {
        response.body = body;
        setHeader(response.headers, "Content-Type", "application/sdp");
        setHeader(response.headers, "Contact", contactOf(this.host.local, from.protocol));
      }
      this.signalling.respond(tx, response, from);
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

  /** Nothing outside a dialog is a test call's: its Call-IDs are ours. */
  claims(): boolean {
    return false;
  }

  /** cancel_test_call: CANCEL before the answer, BYE after; false when the call is over already. */
  cancel(): boolean {
    if (this.state === "ended") return false;
    const outcome: Outcome = { status: "cancelled", sipCode: 487, reason: "cancelled", hangupBy: "platform", endedBy: "cancel" };
    if (this.state === "admitting") this.endWhenAdmitted = outcome;
    else if (this.state === "confirmed") {
      this.leg!.bye();
      this.end({ ...outcome, sipCode: 200 });
    } else {
      this.leg?.cancel();
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
      this.leg?.cancel();
      this.end(outcome);
    }
  }

  /** Ends an answered call with our BYE: done when the sample was played (or the cap reached), failed otherwise. */
  hangUpBoth(_by: "platform", reason: string): void {
    if (this.state !== "confirmed") return;
    this.leg!.bye();
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

  renewCredit(atMs: number): void {
    this.host.renewCredit(atMs);
  }

  grant(seconds: number): void {
    this.credit.grant(seconds);
  }

  /** The end: final progress, the call's end reported with its media, its files handed over. `null`: already told. */
  private end(outcome: Outcome | null): void {
    if (this.state === "ended") return;
    this.state = "ended";
    this.timers.clearAll();
    this.player?.stop();
    this.agent?.hangUp();
    this.host.calls.remove(this);
    const endedAt = new Date();
    const ticket = this.ticket;
    if (outcome) {
      // What the relay heard from the far end (its callee side), read before the relay closes; null: no packet.
      const mosReceived = this.relay?.stats().callee.mos ?? null;
      this.progress({ ...finalProgress(outcome, this.recordId, this.answeredAt, endedAt), mos_received: mosReceived });
    }
    if (!ticket || !this.keepsRecord) {
      this.sipLog.discard();
      this.host.calls.track(this.closeMedia());
      return;
    }
    this.host.calls.track(
      this.sipLog
        .end(() => this.signalling.unanswered)
        .then((file) => file && this.host.media.upload(ticket.call_id, [file], ticket.customer_id))
        .catch((err: unknown) => this.log.warn(`sip log: ${String(err)}`)),
    );
    const reported = outcome ?? failure(500, null);
    this.host.calls.track(
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

  /** Milliseconds since our INVITE went (null before it did). */
  private sinceInvite(): number | null {
    return this.invitedAt === null ? null : Math.max(0, Math.round(Date.now() - this.invitedAt));
  }

  private progress(step: ProgressStep): void {
    this.host.calls.track(this.host.progress.post(this.testCallId, step));
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
