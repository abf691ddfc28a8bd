// SIP over TCP (RFC 3261 §18): one listening socket, connections reused in both directions and
// keyed by the peer's address and port, messages cut from the stream by the StreamFramer.
// Bounded: a connection is accepted only from an address the transaction user admits (the
// whitelist) or a peer we sent to, at most MAX_CONNECTIONS in all and MAX_CONNECTIONS_PER_SOURCE
// per source (an IPv6 source counted by its /64, which one host gets whole); idle connections
// closed, every message size capped.
// The same class carries SIP over TLS toward destinations (outbound only: no certificate of ours).
import { connect, createServer, isIP, type Server, type Socket } from "node:net";
import { connect as connectTls, rootCertificates } from "node:tls";
import { ipToHex } from "../../schema/cidr.ts";
import { StreamFramer } from "./framer.ts";
import type { SipMessage, SipParseError } from "./message.ts";
import type { Endpoint, Inbound, Transport } from "./transport.ts";

export const MAX_CONNECTIONS_PER_SOURCE = 64;
export const MAX_CONNECTIONS = 4_096;
export const IDLE_TIMEOUT_MS = 120_000;
/**
 * A peer we sent to may open a connection to us for this long after (a destination's BYE over a
 * new connection once ours idled out), whitelisted or not; its requests still face the TU's filter.
 */
export const SENT_TO_GRACE_MS = 24 * 3_600_000;

export type TcpLimits = { maxConnections: number; maxPerSource: number };
const DEFAULT_TCP_LIMITS: TcpLimits = { maxConnections: MAX_CONNECTIONS, maxPerSource: MAX_CONNECTIONS_PER_SOURCE };

const V4_MAPPED_HEX = "00000000000000000000ffff";

/** What connections are counted by: an IPv4 address, or the /64 of an IPv6 one. */
export function sourceKey(address: string): string {
  const hex = ipToHex(address);
  if (!hex) return address;
  return hex.startsWith(V4_MAPPED_HEX) ? hex : hex.slice(0, 16);
}

export type MessageInbound = (message: SipMessage, from: Endpoint) => void;

/** Opens a connection to a peer: plain TCP, or TLS with the peer's certificate checked. */
export type Dial = (to: Endpoint) => Socket;

const dialTcp: Dial = (to) => connect({ host: to.address, port: to.port, noDelay: true });

/**
 * TLS toward a destination: its certificate must chain to the system's roots (or `ca`) and name
 * the destination's host (sent as SNI; a destination given by address is checked against it).
 */
export function dialTls(options: { ca?: string; verify: boolean }): Dial {
  return (to) =>
    connectTls({
      host: to.address,
      port: to.port,
      servername: to.serverName && isIP(to.serverName) === 0 ? to.serverName : undefined,
      ca: options.ca ? [...rootCertificates, options.ca] : undefined,
      rejectUnauthorized: options.verify,
    });
}

export class TcpTransport implements Transport {
  readonly protocol: "tcp" | "tls";
  readonly local: { address: string; port: number };
  private readonly server: Server | null;
  private readonly dial: Dial;
  private readonly connections = new Map<string, Socket>();
  private readonly perSource = new Map<string, number>();
  /** Addresses we sent to, and until when they may connect to us. */
  private readonly sentTo = new Map<string, number>();
  private readonly limits: TcpLimits;
  private admits: (address: string) => boolean = () => true;
  private closed = false;
  private onMessage: MessageInbound = () => {};
  private onInvalid: (error: SipParseError, from: Endpoint) => void = () => {};
  private onFailure: (to: Endpoint, reason: string) => void = () => {};

  private constructor(
    server: Server | null,
    local: { address: string; port: number },
    protocol: "tcp" | "tls",
    dial: Dial,
    limits: TcpLimits = DEFAULT_TCP_LIMITS,
  ) {
    this.server = server;
    this.local = local;
    this.protocol = protocol;
    this.dial = dial;
    this.limits = limits;
  }

  /** Connections we open only (SIP over TLS toward destinations); `local` is what Via and Contact say. */
  static outbound(protocol: "tcp" | "tls", local: { address: string; port: number }, dial: Dial): TcpTransport {
    return new TcpTransport(null, local, protocol, dial);
  }

  static async bind(address: string, port: number, publicAddress = address, limits = DEFAULT_TCP_LIMITS): Promise<TcpTransport> {
    const server = createServer({ noDelay: true });
    await new Promise<void>((resolve, reject) => {
      server.once("error", reject);
      server.listen(port, address, () => {
        server.off("error", reject);
        resolve();
      });
    });
    const bound = server.address() as { port: number };
    const transport = new TcpTransport(server, { address: publicAddress, port: bound.port }, "tcp", dialTcp, limits);
    server.on("connection", (socket) => transport.accept(socket));
    return transport;
  }

  admitConnections(filter: (address: string) => boolean): void {
    this.admits = filter;
  }

  /** Whether `address` may hold a connection to us: admitted by the TU, or a peer we sent to lately. */
  private welcomes(address: string): boolean {
    if (this.admits(address)) return true;
    const until = this.sentTo.get(address);
    return until !== undefined && until > Date.now();
  }

  /** A connection to our listening socket: a stranger's, or one past a cap, is closed at once, unread. */
  private accept(socket: Socket): void {
    const address = socket.remoteAddress ?? "";
    const perSource = this.perSource.get(sourceKey(address)) ?? 0;
    if (
      !address ||
      this.connections.size >= this.limits.maxConnections ||
      perSource >= this.limits.maxPerSource ||
      !this.welcomes(address)
    ) {
      socket.destroy();
      return;
    }
    this.adopt(socket);
  }

  /** Parsed messages go straight to the transaction layer: the framer already parsed them. */
  onReceiveMessage(handler: MessageInbound, onInvalid: (error: SipParseError, from: Endpoint) => void): void {
    this.onMessage = handler;
    this.onInvalid = onInvalid;
  }

  onSendFailure(handler: (to: Endpoint, reason: string) => void): void {
    this.onFailure = handler;
  }

  onReceive(_handler: Inbound): void {
    // Streams deliver parsed messages through onReceiveMessage.
  }

  send(bytes: Uint8Array, to: Endpoint): void {
    if (this.closed) return;
    const key = `${to.address}:${to.port}`;
    this.rememberSentTo(to.address);
    let socket = this.connections.get(key);
    if (!socket || socket.destroyed) {
      socket = this.dial(to);
      this.adopt(socket, key);
      // What waits on a connection we opened learns at once that it failed.
      socket.once("error", (err) => this.onFailure(to, `${this.protocol} connection to ${key} failed: ${err.message}`));
    }
    socket.write(bytes);
  }

  private rememberSentTo(address: string): void {
    const now = Date.now();
    if (!this.sentTo.has(address) && this.sentTo.size >= this.limits.maxConnections) {
      for (const [known, until] of this.sentTo) if (until <= now) this.sentTo.delete(known);
    }
    this.sentTo.set(address, now + SENT_TO_GRACE_MS);
  }

  /** Reads messages from a connection, accepted (`knownKey` absent) or opened by us. */
  private adopt(socket: Socket, knownKey?: string): void {
    const address = socket.remoteAddress || knownKey?.slice(0, knownKey.lastIndexOf(":")) || "";
    const source = sourceKey(address);
    this.perSource.set(source, (this.perSource.get(source) ?? 0) + 1);
    const key = knownKey ?? `${address}:${socket.remotePort}`;
    this.connections.set(key, socket);
    const protocol = this.protocol;
    const from = (): Endpoint => ({ address: socket.remoteAddress ?? address, port: socket.remotePort ?? 0, protocol });
    const framer = new StreamFramer(undefined, {
      onInvalid: (error) => this.onInvalid(error, from()),
      // A keep-alive is answered only to whom we would answer anything.
      onPing: () => {
        if (knownKey || this.welcomes(socket.remoteAddress ?? "")) socket.write("\r\n");
      },
    });
    socket.setTimeout(IDLE_TIMEOUT_MS, () => socket.destroy());
    socket.on("data", (chunk: Buffer) => {
      let messages: SipMessage[];
      try {
        messages = framer.push(chunk);
      } catch (error) {
        // A stream that cannot be framed any more is closed (RFC 3261 §18.3).
        this.onInvalid(error as SipParseError, from());
        socket.destroy();
        return;
      }
      for (const message of messages) this.onMessage(message, from());
    });
    socket.on("error", () => socket.destroy());
    socket.on("close", () => {
      if (this.connections.get(key) === socket) this.connections.delete(key);
      const left = (this.perSource.get(source) ?? 1) - 1;
      if (left <= 0) this.perSource.delete(source);
      else this.perSource.set(source, left);
    });
  }

  close(): Promise<void> {
    this.closed = true;
    for (const socket of this.connections.values()) socket.destroy();
    const server = this.server;
    return server ? new Promise((resolve) => server.close(() => resolve())) : Promise.resolve();
  }
}
