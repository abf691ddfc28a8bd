// NodeHub: one instance per region, holding a hibernatable WebSocket from each SIP node.
// The Worker reaches a node through it for work that needs UDP or a live call.
// Only the count of connected nodes exists so far; the socket protocol arrives with the SIP node.
import { DurableObject } from "cloudflare:workers";

export class NodeHub extends DurableObject {
  connectedNodes(): number {
    return this.ctx.getWebSockets().length;
  }
}
