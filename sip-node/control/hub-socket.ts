// The node's control socket to the Worker's NodeHub: commands in ({id, command}), answers out
// ({id, ok, result | error}). Reconnects with backoff whenever the socket drops.
import { HubRequest, type HubCommand, type HubReply } from "../../schema/node-api.ts";
import type { SipNodeConfig } from "../config.ts";

export type CommandHandler = (command: HubCommand) => Promise<Record<string, unknown>>;

export class HubSocket {
  private socket: WebSocket | null = null;
  private closed = false;
  private backoffMs = 500;
  private readonly url: string;
  private readonly token: string;
  private readonly handle: CommandHandler;
  private readonly log: (m: string) => void;
  /** Resolves once the first connection is open (tests wait for it). */
  readonly connected: Promise<void>;
  private markConnected!: () => void;

  constructor(config: SipNodeConfig, handle: CommandHandler, log: (m: string) => void) {
    this.url = `${config.worker.url.replace(/^http/, "ws")}/internal/hub?node_id=${encodeURIComponent(config.nodeId)}`;
    this.token = config.worker.nodeToken;
    this.handle = handle;
    this.log = log;
    this.connected = new Promise((resolve) => (this.markConnected = resolve));
    this.connect();
  }

  private connect(): void {
    if (this.closed) return;
    const socket = new WebSocket(this.url, { headers: { Authorization: `Bearer ${this.token}` } } as never);
    this.socket = socket;
    socket.addEventListener("open", () => {
      this.backoffMs = 500;
      this.markConnected();
    });
    socket.addEventListener("message", (event) => void this.onMessage(String(event.data)));
    socket.addEventListener("close", () => this.reconnect());
    socket.addEventListener("error", () => {});
  }

  private reconnect(): void {
    if (this.closed) return;
    setTimeout(() => this.connect(), this.backoffMs).unref();
    this.backoffMs = Math.min(this.backoffMs * 2, 30_000);
  }

  private async onMessage(text: string): Promise<void> {
    let request: HubRequest;
    try {
      request = HubRequest.parse(JSON.parse(text));
    } catch {
      this.log("hub: a message that is not a command was ignored");
      return;
    }
    let reply: HubReply;
    try {
      reply = { id: request.id, ok: true, result: await this.handle(request.command) };
    } catch (err) {
      reply = { id: request.id, ok: false, error: err instanceof Error ? err.message : String(err) };
    }
    this.socket?.send(JSON.stringify(reply));
  }

  close(): void {
    this.closed = true;
    this.socket?.close();
  }
}
