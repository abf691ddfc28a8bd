// The SIP messages of one call's legs as the call sends and receives them: each one recorded in
// the call's ladder (CallReport), and our requests counted until answered (the call's SIP log
// waits for them after the end). Retransmissions go on the wire only.
import type { SipMessage, SipRequest, SipResponse } from "../sip/message.ts";
import type { ServerTransaction, TransactionLayer } from "../sip/transactions.ts";
import type { Endpoint } from "../sip/transport.ts";
import type { CallReport } from "./call-report.ts";
import { requestOn, type Address, type Dialog, type RequestOptions } from "./dialog.ts";

export type SignallingLayer = Pick<TransactionLayer, "sendRequest" | "sendStateless">;

export class CallSignalling {
  /** Our address, for Via, Contact and the ladder. */
  readonly local: Address;
  private readonly layer: SignallingLayer;
  private readonly ladder: Pick<CallReport, "record">;
  private pending = 0;

  constructor(layer: SignallingLayer, local: Address, ladder: Pick<CallReport, "record">) {
    this.layer = layer;
    this.local = local;
    this.ladder = ladder;
  }

  /** Our requests still awaiting a final answer. */
  get unanswered(): number {
    return this.pending;
  }

  /** Sends a request in a client transaction; `onResponse` hears every response, null for none. */
  send(request: SipRequest, to: Endpoint, onResponse: (response: SipResponse | null) => void): void {
    this.sent(request, to);
    this.pending++;
    this.layer.sendRequest(request, to, (response) => {
      if (!response || response.status >= 200) this.pending--;
      onResponse(response);
    });
  }

  /** A request of ours inside `dialog`, at its remote target. */
  sendIn(dialog: Dialog, method: string, options: RequestOptions, onResponse: (response: SipResponse | null) => void): SipRequest {
    const request = requestOn(dialog, this.local, method, options);
    this.send(request, dialog.endpoint, onResponse);
    return request;
  }

  /** Hangs up `dialog`; the answer to our BYE goes to the ladder too. */
  bye(dialog: Dialog): void {
    this.sendIn(dialog, "BYE", {}, (response) => {
      if (response) this.received(response, dialog.endpoint);
    });
  }

  /** Sends a message outside any transaction (the ACK of a 2xx). */
  sendStateless(message: SipMessage, to: Endpoint): void {
    this.layer.sendStateless(message, to);
    this.sent(message, to);
  }

  /** Sends a message again (a lost ACK, our 2xx until its ACK): on the wire, not in the ladder. */
  resend(message: SipMessage, to: Endpoint): void {
    this.layer.sendStateless(message, to);
  }

  /** Answers a request through its server transaction. */
  respond(tx: ServerTransaction, response: SipResponse, to: Address): void {
    tx.respond(response);
    this.sent(response, to);
  }

  received(message: SipMessage, from: Address): void {
    this.ladder.record("in", message, from, this.local);
  }

  sent(message: SipMessage, to: Address): void {
    this.ladder.record("out", message, this.local, to);
  }
}
