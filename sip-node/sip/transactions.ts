// The transaction layer of RFC 3261 §17: matching messages to transactions (§17.1.3, §17.2.3),
// retransmitting over UDP and timing out, with the timers named as the RFC names them.
// Above it sits the transaction user (the call router, calls/call-router.ts); below it, a Transport.
import { header, setHeader } from "./headers.ts";
import type { SipMessage, SipRequest, SipResponse } from "./message.ts";
import { SipParseError } from "./message.ts";
import { parseCSeq, parseMessage, parseVia } from "./parser.ts";
import { serializeMessage } from "./serializer.ts";
import type { Endpoint, Transport } from "./transport.ts";

/** RFC 3261 §17.1.1.1 timer base values, in milliseconds. */
export type TimerValues = { T1: number; T2: number; T4: number };
export const RFC_TIMERS: TimerValues = { T1: 500, T2: 4_000, T4: 5_000 };

export const BRANCH_MAGIC = "z9hG4bK";

/**
 * Above the layer, the transaction user: each message received is handed to it once (`receive`);
 * it decides whether the message is handled at all and, if so, has the layer match it to a
 * transaction (matchResponse, matchAck, matchRequest) before it acts on it.
 */
export type TransactionUser = {
  /**
   * A message received, parsed: `bytes` is the datagram as it was, or null for a message a stream
   * transport parsed as it read. A request the TU does not match leaves no state in the layer.
   */
  receive(message: SipMessage, from: Endpoint, bytes: Uint8Array | null): void;
  /** Every message sent, retransmissions included. */
  onSent?(message: SipMessage, bytes: Uint8Array, to: Endpoint): void;
  /** Whether a stream connection from `address` may be accepted (before any message). */
  admitsConnection?(address: string): boolean;
  /** An INVITE we answered with a final response that was never acknowledged (Timer H fired). */
  onUnacknowledged?(invite: SipRequest, from: Endpoint): void;
  /** A message that could not be parsed, or was found invalid while handled. */
  onBadMessage?(error: SipParseError, from: Endpoint): void;
};

/** The timers one transaction holds, cancelled together when it ends. */
class TransactionTimers {
  private handles: Array<ReturnType<typeof setTimeout>> = [];

  after(ms: number, fn: () => void): void {
    this.handles.push(setTimeout(fn, ms));
  }

  /** Calls `send` after `interval`, doubling up to `cap`, for as long as `active()` holds (Timers A, E, G). */
  backoff(interval: number, cap: number, active: () => boolean, send: () => void): void {
    this.after(interval, () => {
      if (!active()) return;
      send();
      this.backoff(Math.min(interval * 2, cap), cap, active, send);
    });
  }

  clear(): void {
    for (const handle of this.handles) clearTimeout(handle);
    this.handles = [];
  }
}

/** Server transactions: answer a request once, absorb its retransmissions (§17.2). */
export class ServerTransaction {
  readonly request: SipRequest;
  readonly isInvite: boolean;
  state: "trying" | "proceeding" | "completed" | "confirmed" | "terminated";
  private lastResponse: { message: SipResponse; bytes: Uint8Array } | null = null;
  private readonly timers = new TransactionTimers();
  private readonly layer: TransactionLayer;
  readonly source: Endpoint;
  readonly key: string;

  constructor(layer: TransactionLayer, key: string, request: SipRequest, source: Endpoint) {
    this.layer = layer;
    this.key = key;
    this.request = request;
    this.source = source;
    this.isInvite = request.method === "INVITE";
    this.state = this.isInvite ? "proceeding" : "trying";
  }

  respond(response: SipResponse): void {
    if (this.state === "completed" || this.state === "confirmed" || this.state === "terminated") return;
    const bytes = serializeMessage(response);
    this.lastResponse = { message: response, bytes };
    this.layer.transmit(bytes, this.source, response);
    const { T1, T2 } = this.layer.timers;
    const reliable = this.source.protocol !== "udp";
    if (response.status < 200) {
      this.state = "proceeding";
      return;
    }
    if (this.isInvite && response.status < 300) {
      // 2xx ends the INVITE server transaction; the dialog layer retransmits the 2xx (§13.3.1.4).
      this.terminate();
      return;
    }
    this.state = "completed";
    if (this.isInvite) {
      // Timer G: retransmit the final response until the ACK; Timer H: give up on the ACK.
      if (!reliable)
        this.timers.backoff(
          T1,
          T2,
          () => this.state === "completed",
          () => this.layer.transmit(bytes, this.source, response),
        );
      this.timers.after(64 * T1, () => {
        // Timer H: no ACK ever came (a dead peer, or a spoofed source reflecting our answers).
        if (this.state === "completed") this.layer.unacknowledged(this);
        this.terminate();
      });
    } else {
      // Timer J: absorb request retransmissions for a while.
      this.timers.after(reliable ? 0 : 64 * T1, () => this.terminate());
    }
  }

  /** A retransmission of the request arrived: send the last response again. */
  retransmitted(): void {
    const last = this.lastResponse;
    if (last && this.state !== "confirmed") this.layer.transmit(last.bytes, this.source, last.message);
  }

  /** The ACK of a non-2xx final response (§17.2.1): stop retransmitting; Timer I absorbs further ACKs. */
  acked(): void {
    if (this.state !== "completed") return;
    this.state = "confirmed";
    this.timers.clear();
    this.timers.after(this.source.protocol === "udp" ? this.layer.timers.T4 : 0, () => this.terminate());
  }

  terminate(): void {
    this.state = "terminated";
    this.timers.clear();
    this.layer.forgetServer(this.key);
  }
}

export type ClientOutcome = (response: SipResponse | null) => void;

/** Client transactions: send a request, retransmit it over UDP, hand every response up (§17.1). */
export class ClientTransaction {
  readonly request: SipRequest;
  readonly isInvite: boolean;
  readonly destination: Endpoint;
  readonly key: string;
  state: "calling" | "trying" | "proceeding" | "completed" | "terminated";
  private readonly timers = new TransactionTimers();
  private readonly layer: TransactionLayer;
  private readonly bytes: Uint8Array;
  private readonly onResponse: ClientOutcome;

  constructor(layer: TransactionLayer, key: string, request: SipRequest, destination: Endpoint, onResponse: ClientOutcome) {
    this.layer = layer;
    this.key = key;
    this.request = request;
    this.destination = destination;
    this.onResponse = onResponse;
    this.isInvite = request.method === "INVITE";
    this.state = this.isInvite ? "calling" : "trying";
    this.bytes = serializeMessage(request);
  }

  start(): void {
    const { T1, T2 } = this.layer.timers;
    this.layer.transmit(this.bytes, this.destination, this.request);
    if (this.destination.protocol === "udp") {
      // Timer A (INVITE) doubles until a provisional; Timer E (non-INVITE) doubles up to T2 and
      // keeps going in Proceeding (§17.1.2.2).
      const active = this.isInvite ? () => this.state === "calling" : () => this.state === "trying" || this.state === "proceeding";
      const cap = this.isInvite ? Number.POSITIVE_INFINITY : T2;
      this.timers.backoff(T1, cap, active, () => this.layer.transmit(this.bytes, this.destination, this.request));
    }
    // Timer B (INVITE) or Timer F (non-INVITE): no final response in 64*T1.
    this.timers.after(64 * T1, () => {
      if (this.state === "calling" || this.state === "trying" || (this.state === "proceeding" && !this.isInvite)) {
        this.terminate();
        this.onResponse(null);
      }
    });
  }

  received(response: SipResponse): void {
    if (this.state === "terminated") return;
    if (this.state === "completed") {
      // A retransmitted final response: the ACK we sent is sent again (§17.1.1.2).
      if (this.isInvite && response.status >= 300) this.sendAck(response);
      return;
    }
    if (response.status < 200) {
      this.state = "proceeding";
      this.onResponse(response);
      return;
    }
    this.timers.clear();
    if (this.isInvite && response.status < 300) {
      // 2xx: the transaction ends; the TU ACKs end to end and absorbs 2xx retransmissions.
      this.terminate();
      this.onResponse(response);
      return;
    }
    this.state = "completed";
    if (this.isInvite) this.sendAck(response);
    this.onResponse(response);
    const reliable = this.destination.protocol !== "udp";
    // Timer D (INVITE, 32 s over UDP) or Timer K (non-INVITE, T4): absorb retransmissions.
    this.timers.after(reliable ? 0 : this.isInvite ? 32_000 : this.layer.timers.T4, () => this.terminate());
  }

  /** RFC 3261 §17.1.1.3: the ACK of a non-2xx response is part of the INVITE transaction. */
  private sendAck(response: SipResponse): void {
    const headers: SipMessage["headers"] = [];
    const via = header(this.request, "Via");
    if (via) headers.push(["Via", via]);
    for (const [name, value] of this.request.headers) if (name === "Route") headers.push([name, value]);
    headers.push(["From", header(this.request, "From")!]);
    headers.push(["To", header(response, "To")!]);
    headers.push(["Call-ID", header(this.request, "Call-ID")!]);
    headers.push(["CSeq", `${parseCSeq(header(this.request, "CSeq")!).seq} ACK`]);
    headers.push(["Max-Forwards", "70"]);
    const ack: SipRequest = { kind: "request", method: "ACK", uri: this.request.uri, version: "SIP/2.0", headers, body: new Uint8Array(0) };
    this.layer.transmit(serializeMessage(ack), this.destination, ack);
  }

  terminate(): void {
    this.state = "terminated";
    this.timers.clear();
    this.layer.forgetClient(this.key);
  }

  /**
   * The transport could not carry the request (a refused connection, a TLS handshake that
   * failed): RFC 3261 §17.1.4 has the TU treat it as a 503 at once, not after Timer B or F.
   */
  transportFailed(reason: string): void {
    if (this.state === "completed" || this.state === "terminated") return;
    this.terminate();
    const response = responseTo(this.request, 503, "Service Unavailable");
    response.headers.push(["Warning", `399 call-shield "${reason.replace(/["\\]/g, "'").slice(0, 120)}"`]);
    this.onResponse(response);
  }
}

/**
 * How many server and client transactions the layer holds at most; past either, a new request is
 * answered 503 (server) or fails as a 503 (client). A busy node (400 calls/s) holds about 13,000
 * server transactions (each BYE's for 32 s), so the caps only bite on a flood.
 */
export type TransactionLimits = { servers: number; clients: number };
export const DEFAULT_TRANSACTION_LIMITS: TransactionLimits = { servers: 50_000, clients: 50_000 };

/** Matches incoming messages to transactions and owns the transport. */
export class TransactionLayer {
  readonly timers: TimerValues;
  readonly transport: Transport;
  private readonly servers = new Map<string, ServerTransaction>();
  private readonly clients = new Map<string, ClientTransaction>();
  private readonly tu: TransactionUser;
  private readonly limits: TransactionLimits;

  constructor(
    transport: Transport,
    tu: TransactionUser,
    timers: TimerValues = RFC_TIMERS,
    limits: TransactionLimits = DEFAULT_TRANSACTION_LIMITS,
  ) {
    this.transport = transport;
    this.tu = tu;
    this.timers = timers;
    this.limits = limits;
    transport.onReceive((bytes, from) => this.receive(bytes, from));
    transport.admitConnections?.((address) => this.tu.admitsConnection?.(address) ?? true);
    transport.onReceiveMessage?.(
      (message, from) => this.dispatch(message, from),
      (error, from) => this.tu.onBadMessage?.(error, from),
    );
    transport.onSendFailure?.((to, reason) => this.failClientsTo(to, reason));
  }

  private failClientsTo(to: Endpoint, reason: string): void {
    for (const tx of [...this.clients.values()]) {
      const d = tx.destination;
      if (d.protocol === to.protocol && d.port === to.port && d.address === to.address) tx.transportFailed(reason);
    }
  }

  get activeTransactions(): number {
    return this.servers.size + this.clients.size;
  }

  /** Server and client transactions held, apart. */
  get transactionCounts(): { servers: number; clients: number } {
    return { servers: this.servers.size, clients: this.clients.size };
  }

  /** Timer H fired on an INVITE server transaction: the TU may hold it against the source. */
  unacknowledged(tx: ServerTransaction): void {
    this.tu.onUnacknowledged?.(tx.request, tx.source);
  }

  /** Sends a serialized message; `message` is what it was serialized from, for the TU's view of the wire. */
  transmit(bytes: Uint8Array, to: Endpoint, message: SipMessage): void {
    this.transport.send(bytes, to);
    if (!this.tu.onSent) return;
    // What the TU does with a sent message (a call's SIP log) never stops it.
    try {
      this.tu.onSent(message, bytes, to);
    } catch (err) {
      this.onInternalError?.(err, to);
    }
  }

  /** Ends every transaction and its timers, then closes the transport. */
  async close(): Promise<void> {
    for (const tx of [...this.servers.values(), ...this.clients.values()]) tx.terminate();
    await this.transport.close();
  }

  /**
   * Where requests may go (set by the TU): a destination it refuses (a private address, say) is
   * never contacted. Every request the node starts passes here, after resolution.
   */
  destinationFilter: ((to: Endpoint) => boolean) | null = null;

  allowsDestination(to: Endpoint): boolean {
    return this.destinationFilter?.(to) ?? true;
  }

  /** Starts a client transaction; the request's top Via must carry a fresh branch. */
  sendRequest(request: SipRequest, destination: Endpoint, onResponse: ClientOutcome): ClientTransaction {
    const key = clientKey(request);
    const tx = new ClientTransaction(this, key, request, destination, onResponse);
    const refusal = !this.allowsDestination(destination)
      ? `destination address ${destination.address} refused`
      : this.clients.size >= this.limits.clients
        ? "transaction table full"
        : null;
    if (refusal) {
      // Nothing is sent; the TU hears a 503 on the next turn, as from a transport that failed.
      setImmediate(() => tx.transportFailed(refusal));
      return tx;
    }
    this.clients.set(key, tx);
    tx.start();
    return tx;
  }

  /** Sends a message outside any transaction (an ACK for a 2xx, a 2xx retransmission). */
  sendStateless(message: SipMessage, destination: Endpoint): void {
    this.transmit(serializeMessage(message), destination, message);
  }

  /** The INVITE server transaction a CANCEL is for (same branch and sent-by, §9.2). */
  inviteFor(cancel: SipRequest): ServerTransaction | undefined {
    return this.servers.get(serverKey(cancel, "INVITE"));
  }

  receive(bytes: Uint8Array, from: Endpoint): void {
    let message: SipMessage;
    try {
      message = parseMessage(bytes);
    } catch (err) {
      if (err instanceof SipParseError) this.tu.onBadMessage?.(err, from);
      return;
    }
    this.dispatch(message, from, bytes);
  }

  /** A message already parsed (stream transports frame and parse as they read); `bytes` when the datagram is at hand. */
  dispatch(message: SipMessage, from: Endpoint, bytes: Uint8Array | null = null): void {
    // Nothing a peer sends may stop the node: a message that trips the layer or the TU is dropped.
    try {
      this.tu.receive(message, from, bytes);
    } catch (err) {
      if (err instanceof SipParseError) this.tu.onBadMessage?.(err, from);
      else this.onInternalError?.(err, from);
    }
  }

  /** Hook for failures of our own code while handling a message (logged by the node). */
  onInternalError: ((error: unknown, from: Endpoint) => void) | null = null;

  /**
   * A response received, to the client transaction it answers (which hands it to the request's
   * sender). False when no transaction holds it: a stray, or a 2xx that came again after our
   * INVITE transaction ended (the dialog ACKs it again).
   */
  matchResponse(response: SipResponse): boolean {
    const tx = this.clients.get(clientKey(response));
    tx?.received(response);
    return tx !== undefined;
  }

  /**
   * An ACK received: true when it acknowledged a non-2xx final answer of ours, which its INVITE
   * transaction absorbs (§17.2.1); false for the ACK of a 2xx, which belongs to the dialog (§17.1.1.3).
   */
  matchAck(ack: SipRequest): boolean {
    const tx = this.servers.get(serverKey(ack, "INVITE"));
    tx?.acked();
    return tx !== undefined;
  }

  /**
   * A request received other than ACK: its new server transaction, through which the TU answers
   * it; null when the layer took care of it (a retransmission, answered again with the last
   * response; a full table, answered 503).
   */
  matchRequest(request: SipRequest, from: Endpoint): ServerTransaction | null {
    const key = serverKey(request, request.method);
    const existing = this.servers.get(key);
    if (existing) {
      existing.retransmitted();
      return null;
    }
    if (this.servers.size >= this.limits.servers) {
      this.refuseStateless(request, from);
      return null;
    }
    const tx = new ServerTransaction(this, key, request, from);
    this.servers.set(key, tx);
    return tx;
  }

  /** 503 with Retry-After, sent without a transaction (the table is full). */
  private refuseStateless(request: SipRequest, from: Endpoint): void {
    const response = responseTo(request, 503, "Service Unavailable");
    response.headers.push(["Retry-After", "5"]);
    this.sendStateless(response, from);
  }

  forgetServer(key: string): void {
    this.servers.delete(key);
  }

  forgetClient(key: string): void {
    this.clients.delete(key);
  }
}

/** §17.2.3: branch + sent-by + method (ACK matches its INVITE). */
function serverKey(request: SipRequest, method: string): string {
  const via = parseVia(header(request, "Via") ?? "");
  const sentBy = `${via.host}:${via.port ?? ""}`;
  if (via.branch?.startsWith(BRANCH_MAGIC)) return `${via.branch}|${sentBy}|${method}`;
  // RFC 2543 peers: fall back to the dialog and CSeq identifiers (§17.2.3, simplified).
  return `${header(request, "Call-ID")}|${parseCSeq(header(request, "CSeq")!).seq}|${sentBy}|${method}`;
}

/** §17.1.3: top Via branch + CSeq method. */
function clientKey(message: SipMessage): string {
  const via = parseVia(header(message, "Via") ?? "");
  return `${via.branch}|${parseCSeq(header(message, "CSeq")!).method}`;
}

/** A response to a request, copying the headers §8.2.6.2 names. */
export function responseTo(request: SipRequest, status: number, reason: string, toTag?: string): SipResponse {
  const headers: SipMessage["headers"] = [];
  for (const [name, value] of request.headers) {
    if (name === "Via" || name === "Record-Route") headers.push([name, value]);
  }
  headers.push(["From", header(request, "From")!]);
  const to = header(request, "To")!;
  headers.push(["To", toTag && !/;\s*tag=/i.test(to) ? `${to};tag=${toTag}` : to]);
  headers.push(["Call-ID", header(request, "Call-ID")!]);
  headers.push(["CSeq", header(request, "CSeq")!]);
  const response: SipResponse = { kind: "response", status, reason, version: "SIP/2.0", headers, body: new Uint8Array(0) };
  setHeader(response.headers, "Server", "call-shield");
  return response;
}
