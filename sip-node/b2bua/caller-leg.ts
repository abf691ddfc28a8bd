// The caller's leg of a B2BUA call, where we are the UAS (RFC 3261 §12.1.1, §13.3): the caller's
// INVITE and our answers to it through its server transaction (100, the provisionals we relay,
// the final answer), our 2xx sent again until the caller's ACK (§13.3.1.4), and the dialog in
// which we send the caller requests of our own (BYE, REFER, a re-INVITE passed on).
import type { CallSignalling } from "../calls/call-signalling.ts";
import type { CallTimers } from "../calls/call-timers.ts";
import { contactOf, dialogOfInvite, type Dialog } from "../calls/dialog.ts";
import { reasonPhrase } from "../sip/causes.ts";
import { header, setHeader } from "../sip/headers.ts";
import type { SipRequest, SipResponse } from "../sip/message.ts";
import { responseTo, type ServerTransaction, type TimerValues } from "../sip/transactions.ts";
import type { Endpoint } from "../sip/transport.ts";

/** On our responses to a web dialer's INVITE: the call's id, linking to its record. */
export const DIALER_CALL_ID_HEADER = "X-Call-Id";

export type CallerLegContext = {
  signalling: Pick<CallSignalling, "local" | "respond" | "resend">;
  timers: Pick<CallTimers, "after" | "clear">;
  /** Our 2xx goes again after T1, the interval doubling up to T2, until 64*T1. */
  retransmission: Pick<TimerValues, "T1" | "T2">;
};

export class CallerLeg {
  readonly invite: SipRequest;
  /** The INVITE's server transaction, through which the caller hears our answers. */
  readonly tx: ServerTransaction;
  readonly endpoint: Endpoint;
  readonly dialog: Dialog;
  private readonly context: CallerLegContext;
  /** A web dialer call's id, for X-Call-Id. */
  private callId: string | null = null;
  private awaitingAck = false;
  private okTimer: ReturnType<typeof setTimeout> | null = null;

  constructor(context: CallerLegContext, invite: SipRequest, tx: ServerTransaction, caller: Endpoint) {
    this.context = context;
    this.invite = invite;
    this.tx = tx;
    this.endpoint = caller;
    this.dialog = dialogOfInvite(invite, caller);
  }

  /** The web dialer shows the call's id (X-Call-Id on our answers), which links to its record. */
  showCallId(callId: string): void {
    this.callId = callId;
  }

  /** Our answer to the caller's INVITE. */
  reply(status: number, reason?: string, body?: Uint8Array, contentType?: string | null): void {
    this.context.signalling.respond(this.tx, this.response(status, reason ?? reasonPhrase(status), body, contentType), this.endpoint);
  }

  /** Our 200, sent again until the caller's ACK; `unacknowledged` when none came in 64*T1. */
  answer(body: Uint8Array, contentType: string | null, unacknowledged: () => void): void {
    const ok = this.response(200, "OK", body, contentType);
    this.context.signalling.respond(this.tx, ok, this.endpoint);
    this.awaitingAck = true;
    if (this.endpoint.protocol === "udp") this.resendUntilAck(ok, unacknowledged);
  }

  /** The caller's ACK of our 2xx. */
  acked(): void {
    if (!this.awaitingAck) return;
    this.awaitingAck = false;
    this.context.timers.clear(this.okTimer);
  }

  /** Whether a request received outside any dialog is the caller's for this call: its INVITE again (the same Via), its CANCEL. */
  claims(request: SipRequest): boolean {
    return request.method !== "INVITE" || header(request, "Via") === header(this.invite, "Via");
  }

  private resendUntilAck(ok: SipResponse, unacknowledged: () => void): void {
    const { T1, T2 } = this.context.retransmission;
    let interval = T1;
    let elapsed = 0;
    const tick = () => {
      if (!this.awaitingAck) return;
      elapsed += interval;
      if (elapsed >= 64 * T1) return unacknowledged();
      this.context.signalling.resend(ok, this.endpoint);
      interval = Math.min(interval * 2, T2);
      this.okTimer = this.context.timers.after(interval, tick);
    };
    this.okTimer = this.context.timers.after(interval, tick);
  }

  private response(status: number, reason: string, body?: Uint8Array, contentType?: string | null): SipResponse {
    const response = responseTo(this.invite, status, reason, status === 100 ? undefined : this.dialog.localTag);
    if (this.callId && status > 100) setHeader(response.headers, DIALER_CALL_ID_HEADER, this.callId);
    if (status >= 180 && status < 300)
      setHeader(response.headers, "Contact", contactOf(this.context.signalling.local, this.endpoint.protocol));
    if (body && body.length > 0) {
      response.body = body;
      if (contentType) setHeader(response.headers, "Content-Type", contentType);
    }
    return response;
  }
}
