// SIP over TCP (RFC 3261 §18): one listening socket, connections reused in both directions and
// keyed by the peer's address and port, messages cut from the stream by the StreamFramer.
// Bounded: connections per source address, idle connections closed, every message size capped.
import { connect, createServer, type Server, type Socket } from "node:net";
import { StreamFramer } from "./framer.ts";
import type { SipMessage, SipParseError } from "./message.ts";
import type { Endpoint, Inbound, Transport } from "./transport.ts";

export const MAX_CONNECTIONS_PER_SOURCE = 64;
export const IDLE_TIMEOUT_MS = 120_000;

export type MessageInbound = (message: SipMessage, from: Endpoint) => void;

export class TcpTransport implements Transport {
  readonly protocol = "tcp" as const;
  readonly local: { address: string; port: number };
  private readonly server: Server;
  private readonly connections = new Map<string, Socket>();
  private readonly perSource = new Map<string, number>();
  private closed = false;
  private onMessage: MessageInbound = () => {};
  private onInvalid: (error: SipParseError, from: Endpoint) => void = () => {};

  private constructor(server: Server, publicAddress: string, port: number) {
    this.server = server;
    this.local = { address: publicAddress, port };
  }

  static async bind(address: string, port: number, publicAddress = address): Promise<TcpTransport> {
    const server = createServer({ noDelay: true });
    await new Promise<void>((resolve, reject) => {
      server.once("error", reject);
      server.listen(port, address, () => {
        server.off("error", reject);
        resolve();
      });
    });
    const bound = server.address() as { port: number };
    const transport = new TcpTransport(server, publicAddress, bound.port);
    server.on("connection", (socket) => transport.adopt(socket));
    return transport;
  }

  /** Parsed messages go straight to the transaction layer: the framer already parsed them. */
  onReceiveMessage(handler: MessageInbound, onInvalid: (error: SipParseError, from: Endpoint) => void): void {
    this.onMessage = handler;
    this.onInvalid = onInvalid;
  }

  onReceive(_handler: Inbound): void {
    // Streams deliver parsed messages through onReceiveMessage.
  }

  send(bytes: Uint8Array, to: Endpoint): void {
    if (this.closed) return;
    const key = `${to.address}:${to.port}`;
    let socket = this.connections.get(key);
    if (!socket || socket.destroyed) {
      socket = connect({ host: to.address, port: to.port, noDelay: true });
      this.adopt(socket, key);
    }
    socket.write(bytes);
  }

  private adopt(socket: Socket, knownKey?: string): void {
    const address = socket.remoteAddress ?? "";
    const source = address || knownKey?.split(":")[0] || "";
    const count = (this.perSource.get(source) ?? 0) + 1;
    if (!knownKey && count > MAX_CONNECTIONS_PER_SOURCE) {
      socket.destroy();
      return;
    }
    this.perSource.set(source, count);
    const key = knownKey ?? `${address}:${socket.remotePort}`;
    this.connections.set(key, socket);
    const from = (): Endpoint => ({ address: socket.remoteAddress ?? source, port: socket.remotePort ?? 0, protocol: "tcp" });
    const framer = new StreamFramer(undefined, {
      onInvalid: (error) => this.onInvalid(error, from()),
      onPing: () => socket.write("\r\n"),
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
    return new Promise((resolve) => this.server.close(() => resolve()));
  }
}
