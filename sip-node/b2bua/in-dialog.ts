// Requests inside either leg's dialog of a B2BUA call: BYE ends the call on both legs, the
// caller's NOTIFY about our REFER goes to the transfer, and anything else (re-INVITE, UPDATE,
// INFO...) passes to the other leg with its SDP anchored at the relay, its answer coming back
// the same way. A web dialer call's session is not renegotiated across the bridge.
import type { CallSignalling } from "../calls/call-signalling.ts";
import { contactOf, requestOn, responseIn, type Dialog } from "../calls/dialog.ts";
import { header, setHeader } from "../sip/headers.ts";
import type { SipRequest } from "../sip/message.ts";
import { parseCSeq } from "../sip/parser.ts";
import { responseTo, type ServerTransaction } from "../sip/transactions.ts";
import type { Endpoint } from "../sip/transport.ts";
import type { CallMedia } from "./call-media.ts";
import type { CallState, Leg } from "./call-state.ts";
import type { CallTransfer } from "./call-transfer.ts";

/** What the requests inside a call's dialogs need of the call. */
export type DialogsOfCall = {
  readonly state: CallState;
  readonly signalling: Pick<CallSignalling, "local" | "sendIn" | "received" | "respond" | "resend">;
  readonly media: Pick<CallMedia, "anchor" | "bridgesBrowser" | "calleeOffer">;
  readonly transfers: Pick<CallTransfer, "underWay" | "onReferProgress">;
  /** A leg's dialog; the callee's is null before it is dialled. */
  dialogOf(leg: Leg): Dialog | null;
  /** The party on `leg` hung up (its BYE, answered). */
  hungUp(leg: Leg): void;
};

const other = (leg: Leg): Leg => (leg === "a" ? "b" : "a");

export class InDialogRequests {
  private readonly call: DialogsOfCall;

  constructor(call: DialogsOfCall) {
    this.call = call;
  }

  /** A request inside the dialog of `leg`. */
  onRequest(leg: Leg, request: SipRequest, tx: ServerTransaction, from: Endpoint): void {
    const call = this.call;
    const own = call.dialogOf(leg)!;
    call.signalling.received(request, from);
    if (request.method === "BYE") {
      tx.respond(responseIn(own, request, 200));
      return call.hungUp(leg);
    }
    if (request.method === "NOTIFY" && leg === "a" && call.transfers.underWay && /^refer\b/i.test(header(request, "Event") ?? "")) {
      return call.transfers.onReferProgress(request, tx);
    }
    const towards = call.dialogOf(other(leg));
    if (!towards || call.state === "ended") return tx.respond(responseIn(own, request, 481));
    if (call.media.bridgesBrowser && (request.method === "INVITE" || request.method === "UPDATE")) {
      return this.keepBrowserSession(leg, request, tx);
    }
    this.passOn(leg, request, tx, from, towards);
  }

  /** re-INVITE, UPDATE, INFO and the like pass to the other leg, their SDP anchored at our relay; so does the answer. */
  private passOn(leg: Leg, request: SipRequest, tx: ServerTransaction, from: Endpoint, towards: Dialog): void {
    const { signalling, media } = this.call;
    const options = { body: media.anchor(leg, request.body), contentType: header(request, "Content-Type") };
    const forwarded = signalling.sendIn(towards, request.method, options, (response) => {
      if (!response) return tx.respond(responseIn(this.call.dialogOf(leg)!, request, 408));
      signalling.received(response, towards.endpoint);
      if (request.method === "INVITE" && response.status >= 200 && response.status < 300) {
        const ack = requestOn(towards, signalling.local, "ACK", { seq: parseCSeq(header(forwarded, "CSeq")!).seq });
        signalling.resend(ack, towards.endpoint);
      }
      const relayed = responseTo(request, response.status, response.reason, this.call.dialogOf(leg)!.localTag);
      relayed.body = media.anchor(other(leg), response.body);
      const type = header(response, "Content-Type");
      if (type) setHeader(relayed.headers, "Content-Type", type);
      setHeader(relayed.headers, "Contact", contactOf(signalling.local, from.protocol));
      signalling.respond(tx, relayed, from);
    });
  }

  /**
   * The browser's re-offer gets 488 (its session stays as it was, RFC 3261 §14.2); the
   * destination's (a refresh, a hold) is answered here with the offer it already has, its new
   * address and law taken by the relay.
   */
  private keepBrowserSession(leg: Leg, request: SipRequest, tx: ServerTransaction): void {
    const { signalling, media } = this.call;
    const callee = this.call.dialogOf("b")!;
    if (leg === "a") return tx.respond(responseIn(this.call.dialogOf("a")!, request, 488));
    media.anchor("b", request.body);
    const ok = responseTo(request, 200, "OK", callee.localTag);
    ok.body = media.calleeOffer;
    setHeader(ok.headers, "Content-Type", "application/sdp");
    setHeader(ok.headers, "Contact", contactOf(signalling.local, callee.endpoint.protocol));
    signalling.respond(tx, ok, callee.endpoint);
  }
}
