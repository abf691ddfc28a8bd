// One call reaching the hosted-number listener: 100 Trying, the Worker told of the arrival
// (CliArrival), then its word: refused with the final answer it names, or answered (200 with our
// SDP), a tone played for tone_seconds while the caller's RTP is measured, and our BYE. The caller
// may CANCEL before the answer (487) or hang up first (BYE: ended by the caller); either way an
// answered arrival's end goes to the Worker (CliArrivalEnd) with what the listener received. No
// recording, no call report, no ledger: the Worker accounts for these calls through the check.
import type { CliArrivalAnswer, CliArrivalEnd } from "../../schema/node-api.ts";
import { CallTimers } from "../calls/call-timers.ts";
import { contactOf, dialogOfInvite, requestOn, responseIn, type Dialog } from "../calls/dialog.ts";
import { WorkerApiError, type WorkerClient } from "../control/worker-client.ts";
import type { MediaEngine } from "../media/engine.ts";
import type { MediaRelay } from "../media/relay.ts";
import { RtpPlayer } from "../origination/player.ts";
import { readAnswer, sdpOffer, type Answer } from "../origination/sdp-offer.ts";
import { reasonPhrase } from "../sip/causes.ts";
import { setHeader } from "../sip/headers.ts";
import type { SipRequest, SipResponse } from "../sip/message.ts";
import { responseTo, type ServerTransaction, type TransactionLayer } from "../sip/transactions.ts";
import type { Endpoint } from "../sip/transport.ts";
import { arrivalOf } from "./arrival-fields.ts";
import { sdpAnswer, toneUlaw } from "./tone.ts";

/** What a listener's call needs of the listener and the node. */
export type CliHost = {
  layer: Pick<TransactionLayer, "sendRequest" | "sendStateless" | "timers">;
  worker: Pick<WorkerClient, "cliArrival" | "cliArrivalEnd">;
  media: Pick<MediaEngine, "open" | "close">;
  nodeId: string;
  /** The listener's address and port, for Via and Contact. */
  local: { address: string; port: number };
  log(message: string): void;
  /** The call is over: the listener forgets it. */
  ended(call: CliCall): void;
  /** Our 200 was never acknowledged: it counts against the source's budget. */
  unacknowledged(source: Endpoint): void;
  /** Work the call's end leaves running (its media closed, its end posted), which the listener's close waits for. */
  track(work: Promise<unknown>): void;
};

type State = "asking" | "answering" | "answered" | "ended";
type EndedBy = CliArrivalEnd["ended_by"];

/** Attempts at posting an arrival's end before it is given up (logged). */
const END_ATTEMPTS = 3;

export class CliCall {
  readonly invite: SipRequest;
  readonly tx: ServerTransaction;
  readonly caller: Endpoint;
  readonly dialog: Dialog;
  state: State = "asking";
  private readonly host: CliHost;
  private readonly timers = new CallTimers();
  private arrivalId: string | null = null;
  private toneSeconds = 0;
  private relay: MediaRelay | null = null;
  private player: RtpPlayer | null = null;
  private awaitingAck = false;
  /** The tone is over (or the ACK never came) before the caller's ACK: our BYE waits for it (§15). */
  private byeWhenAcked = false;
  /** Who ended the call, once ended. */
  private endedBy: EndedBy | null = null;

  constructor(host: CliHost, invite: SipRequest, tx: ServerTransaction, caller: Endpoint) {
    this.host = host;
    this.invite = invite;
    this.tx = tx;
    this.caller = caller;
    this.dialog = dialogOfInvite(invite, caller, 0);
  }

  get callId(): string {
    return this.dialog.callId;
  }

  /** Whether a request names this call's dialog (its Call-ID and our tag). */
  inDialog(toTag: string | null): boolean {
    return toTag === this.dialog.localTag;
  }

  /** 100 Trying, then the Worker's word on the arrival. */
  async start(): Promise<void> {
    this.tx.respond(responseTo(this.invite, 100, "Trying"));
    const answer = await this.host.worker.cliArrival(arrivalOf(this.invite, this.caller, this.host.nodeId)).catch((err: unknown) => {
      this.host.log(`cli arrival ${this.callId}: the Worker did not answer: ${String(err)}`);
      return null;
    });
    if (this.state === "ended") {
      // The call ended while the Worker was asked (the caller's CANCEL, the node stopping): an arrival it answered is over already.
      if (answer?.answer) this.postEnd(answer.arrival_id, this.endedBy ?? "caller", null);
      return;
    }
    if (!answer) return this.refuse(503);
    if (!answer.answer) return this.refuse(answer.sip_code, answer.reason);
    await this.answer(answer);
  }

  private async answer(answer: Extract<CliArrivalAnswer, { answer: true }>): Promise<void> {
    this.arrivalId = answer.arrival_id;
    this.toneSeconds = answer.tone_seconds;
    // An offer in the INVITE is answered in our 200; without one (late offer) we offer, and the ACK answers.
    const offer = this.invite.body.length > 0 ? readAnswer(this.invite.body) : null;
    if (this.invite.body.length > 0 && !offer) return this.refuse(488);
    this.state = "answering";
    const relay = await this.host.media.open(`cli-${answer.arrival_id}`, { record: false, capture: false }).catch((err: unknown) => {
      this.host.log(`cli arrival ${this.callId}: no media: ${String(err)}`);
      return null;
    });
    if (this.state !== "answering") {
      if (relay) this.host.track(this.host.media.close(relay).catch(() => {}));
      return;
    }
    if (!relay) return this.refuse(503);
    this.relay = relay;
    // The listener is the called party: the caller's RTP arrives at the relay's caller side, the tone leaves from there.
    relay.speakAs("callee");
    if (offer) relay.setRemote("caller", offer.media, offer.codec);
    const body = offer
      ? sdpAnswer(relay.publicAddress, relay.localPort("caller"), offer)
      : sdpOffer(relay.publicAddress, relay.localPort("caller"));
    this.sendOk(body);
    this.state = "answered";
    this.timers.after(this.toneSeconds * 1000, () => this.hangUp());
    if (offer) this.playTone(offer);
  }

  /** The tone, paced as RTP; sent only once the caller's own RTP has come (symmetric RTP: no stranger's address gets a stream). */
  private playTone(answer: Answer): void {
    const relay = this.relay;
    if (!relay || this.player) return;
    const player = new RtpPlayer(toneUlaw(this.toneSeconds), answer.law, answer.payloadType, (packet) => {
      if (relay.stats().caller.packets > 0) relay.send("callee", packet);
    });
    this.player = player;
    player.start();
  }

  /** Our 200 with `body`, sent again until the caller's ACK (§13.3.1.4); without one in 64*T1, we hang up. */
  private sendOk(body: Uint8Array): void {
    const ok = this.response(200);
    ok.body = body;
    setHeader(ok.headers, "Content-Type", "application/sdp");
    this.tx.respond(ok);
    this.awaitingAck = true;
    const { T1, T2 } = this.host.layer.timers;
    // No ACK in 64*T1 (over any transport): the caller is gone, or never was (a spoofed source).
    this.timers.after(64 * T1, () => {
      if (!this.awaitingAck) return;
      this.awaitingAck = false;
      this.host.unacknowledged(this.caller);
      this.hangUp();
    });
    if (this.caller.protocol !== "udp") return;
    let interval = T1;
    const resend = () => {
      if (!this.awaitingAck) return;
      this.host.layer.sendStateless(ok, this.caller);
      interval = Math.min(interval * 2, T2);
      this.timers.after(interval, resend);
    };
    this.timers.after(interval, resend);
  }

  /** The ACK of our 200; with a late offer it carries the caller's answer, and the tone starts. */
  acked(ack: SipRequest): void {
    if (!this.awaitingAck) return;
    this.awaitingAck = false;
    if (this.invite.body.length === 0 && ack.body.length > 0 && this.relay) {
      const answer = readAnswer(ack.body);
      if (answer) {
        this.relay.setRemote("caller", answer.media, answer.codec);
        this.playTone(answer);
      }
    }
    if (this.byeWhenAcked) this.hangUp();
  }

  /** A request inside the call's dialog: the caller's BYE ends it; a new offer is declined; the rest is answered. */
  onRequest(request: SipRequest, tx: ServerTransaction): void {
    if (request.method === "BYE") {
      tx.respond(responseIn(this.dialog, request, 200));
      return this.end("caller");
    }
    if (this.state === "ended") return tx.respond(responseIn(this.dialog, request, 481));
    // A re-INVITE or UPDATE: the session stays as it is (RFC 3261 §14.2); the call lasts seconds.
    if (request.method === "INVITE" || request.method === "UPDATE") return tx.respond(responseIn(this.dialog, request, 488));
    if (["OPTIONS", "INFO", "NOTIFY"].includes(request.method)) return tx.respond(responseIn(this.dialog, request, 200));
    const refused = responseIn(this.dialog, request, 405);
    setHeader(refused.headers, "Allow", ALLOW);
    tx.respond(refused);
  }

  /** The caller's CANCEL matched our INVITE before its final answer: 487, and the call is over. */
  cancelledByCaller(): void {
    if (this.state === "answered" || this.state === "ended") return;
    this.tx.respond(this.response(487));
    this.end("caller");
  }

  /**
   * Ends the call from our side: BYE once answered (after the caller's ACK, unless `now`: the
   * listener closes), 503 before, and the end reported.
   */
  hangUp(now = false): void {
    if (this.state === "ended") return;
    if (this.state !== "answered") {
      this.refuse(503);
      return;
    }
    if (this.awaitingAck && !now) {
      this.byeWhenAcked = true;
      return;
    }
    const bye = requestOn(this.dialog, this.host.local, "BYE");
    this.host.layer.sendRequest(bye, this.caller, () => {});
    this.end("listener");
  }

  /** Refuses the INVITE with `status` (the Worker's reason, or the status's own phrase). */
  private refuse(status: number, reason?: string): void {
    this.tx.respond(this.response(status, reason));
    this.end("listener");
  }

  private response(status: number, reason = reasonPhrase(status)): SipResponse {
    const response = responseTo(this.invite, status, reason, this.dialog.localTag);
    if (status >= 200 && status < 300) setHeader(response.headers, "Contact", contactOf(this.host.local, this.caller.protocol));
    if (status === 503) response.headers.push(["Retry-After", "5"]);
    return response;
  }

  /** The call is over: its media measured and released, and an answered arrival's end posted. */
  private end(by: EndedBy): void {
    if (this.state === "ended") return;
    this.state = "ended";
    this.endedBy = by;
    this.timers.clearAll();
    this.player?.stop();
    this.host.ended(this);
    const relay = this.relay;
    this.relay = null;
    const received = relay?.stats().caller ?? null;
    if (relay)
      this.host.track(
        this.host.media.close(relay).catch((err: unknown) => this.host.log(`cli arrival ${this.callId}: media: ${String(err)}`)),
      );
    if (this.arrivalId) this.postEnd(this.arrivalId, by, received);
  }

  private postEnd(arrivalId: string, by: EndedBy, received: ReturnType<MediaRelay["stats"]>["caller"] | null): void {
    const heard = received !== null && received.packets > 0 ? received : null;
    const end: CliArrivalEnd = {
      node_id: this.host.nodeId,
      mos: heard?.mos ?? null,
      packets: heard?.packets ?? 0,
      packet_loss_pct: heard?.loss_pct ?? null,
      jitter_ms: heard?.jitter_ms ?? null,
      ended_by: by,
      ended_at: new Date().toISOString(),
    };
    this.host.track(
      (async () => {
        for (let attempt = 1; attempt <= END_ATTEMPTS; attempt++) {
          try {
            return await this.host.worker.cliArrivalEnd(arrivalId, end);
          } catch (err) {
            const forGood =
              err instanceof WorkerApiError && err.status >= 400 && err.status < 500 && err.status !== 408 && err.status !== 429;
            if (forGood || attempt === END_ATTEMPTS) return this.host.log(`cli arrival ${arrivalId}: end not posted: ${String(err)}`);
            await new Promise((resolve) => setTimeout(resolve, 500 * attempt));
          }
        }
      })(),
    );
  }
}

/** The methods the listener answers (405 lists them). */
export const ALLOW = "INVITE, ACK, CANCEL, BYE, OPTIONS";
