// Transports carry serialized SIP between this node and its peers. The SIP core is written
// against the Transport interface; UDP (and TCP) sockets plug in behind it, and an in-memory
// pair connects two cores in tests without a network.
import { createSocket, type Socket } from "node:dgram";
import type { SipMessage, SipParseError } from "./message.ts";

/** ws and wss: SIP over WebSocket (RFC 7118), the web dialer's browsers (sip-node/webrtc/ws-transport.ts). */
export type Protocol = "udp" | "tcp" | "tls" | "ws" | "wss";
type StreamProtocol = Exclude<Protocol, "udp">;

/** Where a message came from or goes to. */
export type Endpoint = {
  address: string;
  port: number;
  protocol: Protocol;
  /** The host name the address was resolved from: what a TLS peer's certificate must name. */
  serverName?: string;
};

export type Inbound = (bytes: Uint8Array, from: Endpoint) => void;

export interface Transport {
  readonly protocol: Protocol;
  /** The address and port this transport is reachable at (for Via and Contact). */
  readonly local: { address: string; port: number };
  send(bytes: Uint8Array, to: Endpoint): void;
  onReceive(handler: Inbound): void;
  /** Stream transports hand over messages they already framed and parsed. */
  onReceiveMessage?(
    handler: (message: SipMessage, from: Endpoint) => void,
    onInvalid: (error: SipParseError, from: Endpoint) => void,
  ): void;
  /** Stream transports report a connection they opened that failed (refused, TLS refused, reset). */
  onSendFailure?(handler: (to: Endpoint, reason: string) => void): void;
  /** A peer that cannot be dialled back (a browser on a WebSocket) closed its connection. */
  onDisconnect?(handler: (peer: Endpoint) => void): void;
  /** Stream transports accept a connection only from an address `filter` admits. */
  admitConnections?(filter: (address: string) => boolean): void;
  close(): Promise<void>;
}

/** UDP and the stream transports (TCP, TLS, WebSocket), chosen per destination by its protocol. */
export class TransportSet implements Transport {
  readonly protocol = "udp" as const;
  readonly local: { address: string; port: number };
  private readonly udp: Transport;
  private readonly streams: Partial<Record<StreamProtocol, Transport>>;

  constructor(udp: Transport, streams: Partial<Record<StreamProtocol, Transport>>) {
    this.udp = udp;
    this.streams = streams;
    this.local = udp.local;
  }

  send(bytes: Uint8Array, to: Endpoint): void {
    const transport = to.protocol === "udp" ? this.udp : this.streams[to.protocol];
    // A protocol this node does not speak: nothing is sent, and the transaction times out.
    transport?.send(bytes, to);
  }

  onReceive(handler: Inbound): void {
    this.udp.onReceive(handler);
  }

  onReceiveMessage(
    handler: (message: SipMessage, from: Endpoint) => void,
    onInvalid: (error: SipParseError, from: Endpoint) => void,
  ): void {
    for (const stream of Object.values(this.streams)) stream.onReceiveMessage?.(handler, onInvalid);
  }

  onSendFailure(handler: (to: Endpoint, reason: string) => void): void {
    for (const stream of Object.values(this.streams)) stream.onSendFailure?.(handler);
  }

  onDisconnect(handler: (peer: Endpoint) => void): void {
    for (const stream of Object.values(this.streams)) stream.onDisconnect?.(handler);
  }

  admitConnections(filter: (address: string) => boolean): void {
    for (const stream of Object.values(this.streams)) stream.admitConnections?.(filter);
  }

  async close(): Promise<void> {
    await Promise.all([this.udp.close(), ...Object.values(this.streams).map((stream) => stream.close())]);
  }
}

/** One UDP socket; datagrams over the size limit are dropped before parsing. */
export class UdpTransport implements Transport {
  readonly protocol = "udp" as const;
  local: { address: string; port: number };
  private readonly socket: Socket;
  private handler: Inbound = () => {};
  private closed = false;

  private constructor(socket: Socket, publicAddress: string) {
    this.socket = socket;
    const bound = socket.address();
    this.local = { address: publicAddress, port: bound.port };
    socket.on("message", (data, rinfo) => {
      this.handler(data, { address: rinfo.address, port: rinfo.port, protocol: "udp" });
    });
  }

  static async bind(address: string, port: number, publicAddress = address): Promise<UdpTransport> {
    const socket = createSocket({ type: address.includes(":") ? "udp6" : "udp4", recvBufferSize: 8 << 20, sendBufferSize: 8 << 20 });
    await new Promise<void>((resolve, reject) => {
      socket.once("error", reject);
      socket.bind(port, address, () => {
        socket.off("error", reject);
        resolve();
      });
    });
    socket.on("error", (err) => console.error("udp transport:", err.message));
    return new UdpTransport(socket, publicAddress);
  }

  /** A timer that fires after close (a retransmission, a hang-up) sends nothing. */
  send(bytes: Uint8Array, to: Endpoint): void {
    if (!this.closed) this.socket.send(bytes, to.port, to.address);
  }

  onReceive(handler: Inbound): void {
    this.handler = handler;
  }

  close(): Promise<void> {
    this.closed = true;
    return new Promise((resolve) => this.socket.close(() => resolve()));
  }
}

/** Two transports wired to each other in memory, delivering on the next tick like a network would. */
export function memoryPair(a: { address: string; port: number }, b: { address: string; port: number }): [Transport, Transport] {
  const ends: MemoryTransport[] = [];
  const make = (local: { address: string; port: number }, peer: () => MemoryTransport) => new MemoryTransport(local, peer);
  ends.push(
    make(a, () => ends[1]!),
    make(b, () => ends[0]!),
  );
  return [ends[0]!, ends[1]!];
}

class MemoryTransport implements Transport {
  readonly protocol = "udp" as const;
  readonly local: { address: string; port: number };
  private handler: Inbound = () => {};
  private readonly peer: () => MemoryTransport;
  /** Every datagram sent, for tests that assert on the wire. */
  readonly sent: Array<{ bytes: Uint8Array; to: Endpoint }> = [];

  constructor(local: { address: string; port: number }, peer: () => MemoryTransport) {
    this.local = local;
    this.peer = peer;
  }

  send(bytes: Uint8Array, to: Endpoint): void {
    this.sent.push({ bytes, to });
    const from: Endpoint = { ...this.local, protocol: "udp" };
    setImmediate(() => this.peer().handler(bytes, from));
  }

  onReceive(handler: Inbound): void {
    this.handler = handler;
  }

  async close(): Promise<void> {}
}
