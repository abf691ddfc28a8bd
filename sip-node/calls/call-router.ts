// The one hand-off from the transaction layer to the calls: every message the node receives comes
// here, once, and is first written to the SIP log of the call whose Call-ID it carries. A response
// goes to the request's sender through its client transaction; requests inside a dialog the node
// holds go to that dialog (found in the call registry), as do the ACK of our 2xx and a 2xx that
// came again after our ACK was lost. The rest is the front's (the B2BUA): who may be answered at
// all, new calls, the caller's CANCEL, OPTIONS.
import { header } from "../sip/headers.ts";
import type { SipMessage, SipParseError, SipRequest, SipResponse } from "../sip/message.ts";
import { parseCSeq, parseNameAddr } from "../sip/parser.ts";
import type { ServerTransaction, TransactionLayer, TransactionUser } from "../sip/transactions.ts";
import type { Endpoint } from "../sip/transport.ts";
import type { CallRegistry } from "./registry.ts";

/** The requests outside any dialog the node holds, and what the node allows its peers. */
export type CallFront = {
  /** Whether a request outside the node's dialogs is handled at all: one refused gets silence and leaves no state. */
  admits(request: SipRequest, from: Endpoint): boolean;
  /** A request outside any dialog (a new INVITE, a CANCEL, OPTIONS...) in its new server transaction. */
  onRequest(request: SipRequest, tx: ServerTransaction, from: Endpoint, bytes: Uint8Array | null): void;
} & Pick<TransactionUser, "admitsConnection" | "onUnacknowledged" | "onBadMessage">;

const tagOf = (message: SipMessage, name: "From" | "To") => parseNameAddr(header(message, name) ?? "").tag;

export class CallRouter implements TransactionUser {
  private layer!: Pick<TransactionLayer, "matchRequest" | "matchAck" | "matchResponse">;
  private readonly calls: Pick<CallRegistry, "dialog" | "trace">;
  private readonly front: CallFront;

  constructor(calls: Pick<CallRegistry, "dialog" | "trace">, front: CallFront) {
    this.calls = calls;
    this.front = front;
  }

  attach(layer: Pick<TransactionLayer, "matchRequest" | "matchAck" | "matchResponse">): void {
    this.layer = layer;
  }

  receive(message: SipMessage, from: Endpoint, bytes: Uint8Array | null): void {
    if (message.kind === "response") return this.onResponse(message, from, bytes);
    const dialog = this.calls.dialog(header(message, "Call-ID"), tagOf(message, "To"));
    if (!dialog && !this.front.admits(message, from)) return;
    this.calls.trace("in", message, bytes, from);
    if (message.method === "ACK") {
      if (!this.layer.matchAck(message)) dialog?.onAck(message);
      return;
    }
    const tx = this.layer.matchRequest(message, from);
    if (!tx) return;
    // A CANCEL belongs to the INVITE transaction it cancels, not to a dialog (RFC 3261 §9.2).
    if (dialog && message.method !== "CANCEL") return dialog.onRequest(message, tx, from);
    this.front.onRequest(message, tx, from, bytes);
  }

  private onResponse(response: SipResponse, from: Endpoint, bytes: Uint8Array | null): void {
    this.calls.trace("in", response, bytes, from);
    if (this.layer.matchResponse(response)) return;
    // A 2xx for an INVITE of ours whose transaction ended; on the legs we dial, our tag is the From tag.
    if (response.status >= 200 && response.status < 300 && parseCSeq(header(response, "CSeq")!).method === "INVITE") {
      this.calls.dialog(header(response, "Call-ID"), tagOf(response, "From"))?.onRetransmitted2xx();
    }
  }

  onSent(message: SipMessage, bytes: Uint8Array, to: Endpoint): void {
    this.calls.trace("out", message, bytes, to);
  }

  admitsConnection(address: string): boolean {
    return this.front.admitsConnection?.(address) ?? true;
  }

  onUnacknowledged(invite: SipRequest, from: Endpoint): void {
    this.front.onUnacknowledged?.(invite, from);
  }

  onBadMessage(error: SipParseError, from: Endpoint): void {
    this.front.onBadMessage?.(error, from);
  }
}
