// NodeHub: one instance per region, holding a hibernatable WebSocket from each SIP node.
// The Worker reaches a node through it for work that needs UDP or a live call (an OPTIONS
// check, a hang-up, a transfer, live media stats): it sends {id, command} and awaits the
// node's {id, ok, result | error}, or gives up after a timeout.
import { DurableObject } from "cloudflare:workers";
import { HubReply, type HubCommand } from "../schema/node-api.ts";

/** nodeId: the node that answered (a command sent to any node, such as an originate, is then sent on to the same one). */
export type HubOutcome =
  { ok: true; result: Record<string, unknown>; nodeId?: string } | { ok: false; error: "no_node" | "timeout" | string };

type Pending = { resolve: (outcome: HubOutcome) => void; timer: ReturnType<typeof setTimeout>; nodeId: string | undefined };

export class NodeHub extends DurableObject {
  private readonly pending = new Map<string, Pending>();

  /** A SIP node connecting: GET /internal/hub?node_id=... with Upgrade: websocket. */
  override async fetch(request: Request): Promise<Response> {
    const nodeId = new URL(request.url).searchParams.get("node_id") ?? "unnamed";
    const pair = new WebSocketPair();
    // A node that reconnects replaces its old socket.
    for (const old of this.ctx.getWebSockets(nodeId)) old.close(1012, "replaced by a new connection");
    this.ctx.acceptWebSocket(pair[1], [nodeId]);
    return new Response(null, { status: 101, webSocket: pair[0] });
  }

  connectedNodes(): string[] {
    return this.ctx.getWebSockets().flatMap((ws) => this.ctx.getTags(ws));
  }

  /** Sends a command to the named node, or to any connected node, and awaits its answer. */
  async command(command: HubCommand, timeoutMs: number, nodeId?: string): Promise<HubOutcome> {
    const sockets = this.ctx.getWebSockets(nodeId);
    const socket = sockets[Math.floor(Math.random() * sockets.length)];
    if (!socket) return { ok: false, error: "no_node" };
    const id = crypto.randomUUID();
    return new Promise<HubOutcome>((resolve) => {
      const timer = setTimeout(() => {
        this.pending.delete(id);
        resolve({ ok: false, error: "timeout" });
      }, timeoutMs);
      this.pending.set(id, { resolve, timer, nodeId: this.ctx.getTags(socket)[0] });
      socket.send(JSON.stringify({ id, command }));
    });
  }

  override webSocketMessage(_ws: WebSocket, message: string | ArrayBuffer): void {
    if (typeof message !== "string") return;
    let reply: HubReply;
    try {
      reply = HubReply.parse(JSON.parse(message));
    } catch {
      return; // not a reply we understand; the node's own log says why
    }
    const waiting = this.pending.get(reply.id);
    if (!waiting) return;
    clearTimeout(waiting.timer);
    this.pending.delete(reply.id);
    waiting.resolve(
      reply.ok ? { ok: true, result: reply.result ?? {}, nodeId: waiting.nodeId } : { ok: false, error: reply.error ?? "failed" },
    );
  }

  override webSocketClose(ws: WebSocket, code: number): void {
    ws.close(code, "closing");
  }
}
