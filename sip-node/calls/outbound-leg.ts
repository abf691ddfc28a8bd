// One INVITE the node sends as the UAC and the dialog it opens (RFC 3261 §12.1.2, §13.2): the
// B2BUA's leg to the destination and to a transfer's target, a test or verification call's leg
// to the number, and a test call's leg to its voice agent. What such a leg does is all here: the
// INVITE and the requests of its dialog, a digest challenge answered once, the ACK of the 2xx
// (held for the answer to a late offer, sent again when the 2xx comes back), the ring timer,
// CANCEL before the answer with the ACK and BYE of a 2xx that crosses it, and BYE. What an answer
// means for the call is its owner's (LegEvents).
import { cancelOf } from "../sip/cancel.ts";
import { digestAuthorization, parseChallenge } from "../sip/digest-client.ts";
import { header, headers, setHeader } from "../sip/headers.ts";
import type { SipRequest, SipResponse } from "../sip/message.ts";
import { parseCSeq, parseNameAddr } from "../sip/parser.ts";
import type { ServerTransaction } from "../sip/transactions.ts";
import type { Endpoint } from "../sip/transport.ts";
import type { CallSignalling } from "./call-signalling.ts";
import type { CallTimers } from "./call-timers.ts";
import { newTag, requestOn, type Dialog } from "./dialog.ts";
import type { DialogHandler } from "./registry.ts";

export type LegEvents = {
  /** A provisional answer other than 100; the far end's tag is the dialog's from now on. */
  ringing(response: SipResponse): void;
  /** The 2xx, ACKed already (or its ACK held for the caller's answer to a late offer: ackWithAnswer). */
  answered(response: SipResponse): void;
  /** A final answer other than 2xx (after a digest challenge answered once), or null when none came. */
  failed(response: SipResponse | null): void;
  /** Nobody answered before the ring timer ran out: the leg has sent CANCEL. */
  unanswered(): void;
  /** A request the far end sent inside the dialog. */
  request(request: SipRequest, tx: ServerTransaction, from: Endpoint): void;
};

/** What a leg needs of its call. */
export type LegContext = {
  signalling: Pick<CallSignalling, "local" | "send" | "sendIn" | "bye" | "sendStateless" | "resend" | "received">;
  /** The call's timers: its end clears the ring timer with the others. */
  timers: Pick<CallTimers, "after" | "clear">;
  /** Routes the requests inside the leg's dialog and its 2xx retransmissions to it (the node's call registry). */
  dialogs: { add(callId: string, localTag: string, dialog: DialogHandler): void; remove(callId: string, localTag: string): void };
};

export type LegTarget = {
  callId: string;
  localUri: string;
  remoteUri: string;
  /** The INVITE's Request-URI. */
  remoteTarget: string;
  endpoint: Endpoint;
  /** The CSeq number before the INVITE's. */
  localSeq?: number;
  /** Credentials for the far end's digest challenge, answered once. */
  auth?: { username: string; password: string } | null;
  /** How long the far end may ring before the leg cancels it (unanswered). */
  ringTimeoutMs?: number;
  /** The INVITE carries no offer of the caller's: a 2xx's offer is answered in the ACK, which waits for it (ackWithAnswer). */
  lateOffer?: boolean;
};

/** The offer and the headers the INVITE carries besides the dialog's. */
type InviteContent = { body: Uint8Array; contentType: string | null; headers?: Array<[string, string]> };

type LegState = "idle" | "calling" | "early" | "confirmed" | "cancelled" | "failed" | "closed";

const is2xx = (response: SipResponse | null): response is SipResponse =>
  response !== null && response.status >= 200 && response.status < 300;
const tagOf = (response: SipResponse) => parseNameAddr(header(response, "To") ?? "").tag;

export class OutboundLeg {
  readonly dialog: Dialog;
  private readonly context: LegContext;
  private readonly target: LegTarget;
  private readonly events: LegEvents;
  private state: LegState = "idle";
  private content: InviteContent | null = null;
  /** Our INVITE in its last form (after a digest challenge, the one with credentials): CANCEL and ACK follow it. */
  private invite: SipRequest | null = null;
  private authTried = false;
  private lastAck: SipRequest | null = null;
  private heldAck: SipRequest | null = null;
  private ringTimer: ReturnType<typeof setTimeout> | null = null;

  constructor(context: LegContext, target: LegTarget, events: LegEvents) {
    this.context = context;
    this.target = target;
    this.events = events;
    this.dialog = {
      callId: target.callId,
      localTag: newTag(),
      remoteTag: null,
      localUri: target.localUri,
      remoteUri: target.remoteUri,
      remoteTarget: target.remoteTarget,
      endpoint: target.endpoint,
      localSeq: target.localSeq ?? 0,
    };
    context.dialogs.add(target.callId, this.dialog.localTag, {
      onRequest: (request, tx, from) => events.request(request, tx, from),
      onAck: () => {},
      // Our ACK was lost: the far end sends its 2xx again (RFC 3261 §13.2.2.4).
      onRetransmitted2xx: () => {
        if (this.lastAck) context.signalling.resend(this.lastAck, this.dialog.endpoint);
      },
    });
  }

  /** The ACK of the 2xx waits for the caller's answer to the offer it carried. */
  get holdsAck(): boolean {
    return this.heldAck !== null;
  }

  /** Sends the INVITE and starts the ring timer. */
  call(content: InviteContent): void {
    this.content = content;
    this.state = "calling";
    this.sendInvite();
    if (this.target.ringTimeoutMs !== undefined) this.ringTimer = this.context.timers.after(this.target.ringTimeoutMs, () => this.giveUp());
  }

  private sendInvite(authorization?: [string, string]): void {
    const { body, contentType, headers = [] } = this.content!;
    const options = { body, contentType, headers: authorization ? [...headers, authorization] : headers };
    const request = this.context.signalling.sendIn(this.dialog, "INVITE", options, (response) => this.onInviteResponse(request, response));
    this.invite = request;
  }

  private onInviteResponse(request: SipRequest, response: SipResponse | null): void {
    if (response) this.context.signalling.received(response, this.dialog.endpoint);
    if (this.state === "cancelled") {
      // A 2xx that crossed our CANCEL still opened a dialog: ACK it and hang up.
      if (is2xx(response)) {
        this.acknowledge(request, response, false);
        this.bye();
      }
      return;
    }
    if (request !== this.invite || (this.state !== "calling" && this.state !== "early")) return;
    if (!response) return this.fail(null);
    const status = response.status;
    if (status === 100) return;
    if (status < 200) {
      this.dialog.remoteTag ??= tagOf(response);
      this.state = "early";
      return this.events.ringing(response);
    }
    if (status < 300) {
      this.context.timers.clear(this.ringTimer);
      this.state = "confirmed";
      this.acknowledge(request, response, this.target.lateOffer === true && response.body.length > 0);
      return this.events.answered(response);
    }
    const auth = this.target.auth;
    if ((status === 401 || status === 407) && !this.authTried && auth) {
      this.authTried = true;
      const challenge = parseChallenge(header(response, status === 401 ? "WWW-Authenticate" : "Proxy-Authenticate") ?? "");
      const value = challenge && digestAuthorization(challenge, auth, "INVITE", this.dialog.remoteTarget);
      if (value) return this.sendInvite([status === 401 ? "Authorization" : "Proxy-Authorization", value]);
    }
    this.fail(response);
  }

  /** The dialog the 2xx confirmed, and our ACK of it in the INVITE's CSeq, at the far end's Contact. */
  private acknowledge(request: SipRequest, response: SipResponse, hold: boolean): void {
    const dialog = this.dialog;
    dialog.remoteTag = tagOf(response) ?? dialog.remoteTag;
    const contact = header(response, "Contact");
    if (contact) dialog.remoteTarget = parseNameAddr(contact).uri;
    // The route set is the first 2xx's (a retransmission or a forked 2xx does not change it).
    dialog.routeSet ??= headers(response, "Record-Route").reverse();
    const ack = requestOn(dialog, this.context.signalling.local, "ACK", { seq: parseCSeq(header(request, "CSeq")!).seq });
    if (hold) this.heldAck = ack;
    else this.sendAck(ack);
  }

  private sendAck(ack: SipRequest): void {
    this.lastAck = ack;
    this.context.signalling.sendStateless(ack, this.dialog.endpoint);
  }

  /** Late offer: the held ACK goes now, carrying the answer. */
  ackWithAnswer(body: Uint8Array, contentType: string | null): void {
    const ack = this.heldAck;
    if (!ack) return;
    this.heldAck = null;
    ack.body = body;
    if (contentType && body.length > 0) setHeader(ack.headers, "Content-Type", contentType);
    this.sendAck(ack);
  }

  /** The call ends before the caller's answer came: the held ACK goes as it is. */
  releaseHeldAck(): void {
    const ack = this.heldAck;
    this.heldAck = null;
    if (ack) this.sendAck(ack);
  }

  /** CANCEL before the answer (RFC 3261 §9.1); nothing once it came. */
  cancel(): void {
    if (this.state !== "calling" && this.state !== "early") return;
    this.context.timers.clear(this.ringTimer);
    this.state = "cancelled";
    this.context.signalling.send(cancelOf(this.invite!), this.dialog.endpoint, () => {});
  }

  /** BYE, once the far end has a dialog with us. */
  bye(): void {
    if (!this.dialog.remoteTag) return;
    if (this.state === "confirmed") this.state = "closed";
    this.context.signalling.bye(this.dialog);
  }

  /** Ends the leg from our side: CANCEL before the answer, BYE after. */
  hangUp(): void {
    if (this.state === "confirmed") this.bye();
    else this.cancel();
  }

  /** Requests inside the dialog no longer reach this leg (the call goes on without it). */
  forget(): void {
    this.context.dialogs.remove(this.dialog.callId, this.dialog.localTag);
  }

  private giveUp(): void {
    if (this.state !== "calling" && this.state !== "early") return;
    this.cancel();
    this.events.unanswered();
  }

  private fail(response: SipResponse | null): void {
    this.context.timers.clear(this.ringTimer);
    this.state = "failed";
    this.events.failed(response);
  }
}
