// SIP over WebSocket (RFC 7118), the web dialer's transport: one more Transport of the node's
// SIP core, beside UDP, TCP and TLS. A browser connects (subprotocol "sip", refused in the
// handshake without it), each WebSocket message carries one SIP message, and everything for that
// browser (responses, our BYE, re-INVITE answers) goes back over the connection it came on: the
// endpoint of a message names its connection (the browser's address and port), since a browser
// cannot be dialled and its Contact is a ".invalid" host.
// WSS with the operator's certificate; plain WS only where the configuration allows it (loopback).
// Browsers are on no whitelist, so a connection is accepted from anyone, within caps (in all and
// per source, an IPv6 source counted by its /64), idle connections pinged and dropped when dead;
// what a connection may do is the transaction user's business (a dialer token admits an INVITE).
import { createServer as createHttpServer, type IncomingMessage, type Server } from "node:http";
import { createServer as createHttpsServer } from "node:https";
import { WebSocketServer, type WebSocket } from "ws";
import { DEFAULT_LIMITS, SipParseError, type SipMessage } from "../sip/message.ts";
import { parseMessage } from "../sip/parser.ts";
import { sourceKey } from "../sip/tcp-transport.ts";
import type { Endpoint, Inbound, Transport } from "../sip/transport.ts";

export type WsLimits = { maxConnections: number; maxPerSource: number; pingMs: number };
export const DEFAULT_WS_LIMITS: WsLimits = { maxConnections: 2_048, maxPerSource: 64, pingMs: 30_000 };

export type WsListenOptions = {
  bind: string;
  port: number;
  /** The address put in Via and Contact. */
  publicAddress: string;
  /** PEM certificate chain and key: WSS. Absent: plain WS (the configuration allows it on loopback only). */
  tls?: { cert: string; key: string };
  limits?: WsLimits;
};

const SUBPROTOCOL = "sip";

export class WsTransport implements Transport {
  readonly protocol: "ws" | "wss";
  readonly local: { address: string; port: number };
  private readonly server: Server;
  private readonly wss: WebSocketServer;
  private readonly limits: WsLimits;
  private readonly connections = new Map<string, WebSocket>();
  private readonly perSource = new Map<string, number>();
  /** Connections heard from (a pong) since the last ping. */
  private readonly answered = new WeakSet<WebSocket>();
  private readonly pinger: ReturnType<typeof setInterval>;
  private onMessage: (message: SipMessage, from: Endpoint) => void = () => {};
  private onInvalid: (error: SipParseError, from: Endpoint) => void = () => {};
  private onFailure: (to: Endpoint, reason: string) => void = () => {};
  private onGone: (peer: Endpoint) => void = () => {};
  private closed = false;

  private constructor(server: Server, options: WsListenOptions, port: number) {
    this.server = server;
    this.protocol = options.tls ? "wss" : "ws";
    this.local = { address: options.publicAddress, port };
    this.limits = options.limits ?? DEFAULT_WS_LIMITS;
    this.wss = new WebSocketServer({
      server,
      maxPayload: DEFAULT_LIMITS.maxMessageBytes,
      handleProtocols: (protocols) => (protocols.has(SUBPROTOCOL) ? SUBPROTOCOL : false),
      verifyClient: (info, done) => {
        const refusal = this.refusal(info.req);
        if (refusal) done(false, refusal.status, refusal.reason);
        else done(true);
      },
    });
    this.wss.on("connection", (socket, req) => this.adopt(socket, req));
    this.pinger = setInterval(() => this.ping(), this.limits.pingMs);
    this.pinger.unref();
  }

  static async listen(options: WsListenOptions): Promise<WsTransport> {
    const server = options.tls ? createHttpsServer({ cert: options.tls.cert, key: options.tls.key }) : createHttpServer();
    // Anything but a WebSocket upgrade is not ours to serve.
    server.on("request", (_req, res) => res.writeHead(426, { Upgrade: "websocket" }).end());
    await new Promise<void>((resolve, reject) => {
      server.once("error", reject);
      server.listen(options.port, options.bind, () => {
        server.off("error", reject);
        resolve();
      });
    });
    const bound = server.address() as { port: number };
    return new WsTransport(server, options, bound.port);
  }

  /** Why a handshake is refused: no "sip" subprotocol asked for (RFC 7118 §4.1), or a cap reached. */
  private refusal(req: IncomingMessage): { status: number; reason: string } | null {
    const asked = (req.headers["sec-websocket-protocol"] ?? "").split(",").map((p) => p.trim().toLowerCase());
    if (!asked.includes(SUBPROTOCOL)) return { status: 400, reason: "The sip subprotocol is required" };
    const address = plainAddress(req.socket.remoteAddress);
    if (this.closed || this.connections.size >= this.limits.maxConnections) return { status: 503, reason: "Busy" };
    if ((this.perSource.get(sourceKey(address)) ?? 0) >= this.limits.maxPerSource) return { status: 503, reason: "Busy" };
    return null;
  }

  private adopt(socket: WebSocket, req: IncomingMessage): void {
    const address = plainAddress(req.socket.remoteAddress);
    const from: Endpoint = { address, port: req.socket.remotePort ?? 0, protocol: this.protocol };
    const key = keyOf(from);
    const source = sourceKey(address);
    this.perSource.set(source, (this.perSource.get(source) ?? 0) + 1);
    this.connections.set(key, socket);
    this.answered.add(socket);
    socket.on("pong", () => this.answered.add(socket));
    socket.on("message", (data: Buffer | ArrayBuffer | Buffer[]) => this.receive(toBytes(data), from));
    socket.on("error", () => socket.terminate());
    socket.on("close", () => {
      if (this.connections.get(key) === socket) this.connections.delete(key);
      // Its calls cannot reach it any more (a browser is never dialled back): the node ends them.
      if (!this.closed) this.onGone(from);
      const left = (this.perSource.get(source) ?? 1) - 1;
      if (left <= 0) this.perSource.delete(source);
      else this.perSource.set(source, left);
    });
  }

  /** One WebSocket message, one SIP message (RFC 7118 §5.1); CRLF keep-alives are skipped. */
  private receive(bytes: Uint8Array, from: Endpoint): void {
    if (bytes.every((b) => b === 13 || b === 10)) return;
    let message: SipMessage;
    try {
      message = parseMessage(bytes);
    } catch (error) {
      if (error instanceof SipParseError) this.onInvalid(error, from);
      return;
    }
    this.onMessage(message, from);
  }

  /** A connection that did not answer the last ping is dropped; the others are pinged again. */
  private ping(): void {
    for (const socket of this.connections.values()) {
      if (!this.answered.delete(socket)) socket.terminate();
      else socket.ping();
    }
  }

  /** Over the connection the peer is on; a peer no longer connected cannot be reached (the transaction fails at once). */
  send(bytes: Uint8Array, to: Endpoint): void {
    if (this.closed) return;
    const socket = this.connections.get(keyOf(to));
    if (!socket || socket.readyState !== socket.OPEN) {
      const reason = `${this.protocol} peer ${keyOf(to)} is not connected`;
      setImmediate(() => this.onFailure(to, reason));
      return;
    }
    // Text frames: what browsers' SIP libraries read (SIP is UTF-8 text).
    socket.send(bytes, { binary: false });
  }

  onReceive(_handler: Inbound): void {
    // Messages arrive parsed, through onReceiveMessage.
  }

  onReceiveMessage(
    handler: (message: SipMessage, from: Endpoint) => void,
    onInvalid: (error: SipParseError, from: Endpoint) => void,
  ): void {
    this.onMessage = handler;
    this.onInvalid = onInvalid;
  }

  onSendFailure(handler: (to: Endpoint, reason: string) => void): void {
    this.onFailure = handler;
  }

  onDisconnect(handler: (peer: Endpoint) => void): void {
    this.onGone = handler;
  }

  /** How many browsers are connected now. */
  get connected(): number {
    return this.connections.size;
  }

  close(): Promise<void> {
    this.closed = true;
    clearInterval(this.pinger);
    for (const socket of this.connections.values()) socket.terminate();
    return new Promise((resolve) => this.wss.close(() => this.server.close(() => resolve())));
  }
}

const keyOf = (endpoint: Pick<Endpoint, "address" | "port">) => `${endpoint.address}:${endpoint.port}`;

/** An IPv4 peer of a dual-stack socket as its IPv4 address. */
const plainAddress = (address: string | undefined) => (address ?? "").replace(/^::ffff:(\d+\.\d+\.\d+\.\d+)$/, "$1");

function toBytes(data: Buffer | ArrayBuffer | Buffer[]): Uint8Array {
  if (Array.isArray(data)) return Buffer.concat(data);
  return data instanceof ArrayBuffer ? new Uint8Array(data) : data;
}
