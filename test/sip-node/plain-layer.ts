// A transaction layer with a transaction user that has nothing of its own: each response goes to
// its client transaction, each request to `onRequest` in a new server transaction (a retransmission
// answered again by the layer), the ACK of a 2xx to `onAck`.
import type { SipRequest } from "../../sip-node/sip/message.ts";
import { RFC_TIMERS, TransactionLayer, type ServerTransaction, type TimerValues } from "../../sip-node/sip/transactions.ts";
import type { Endpoint, Transport } from "../../sip-node/sip/transport.ts";

type Handlers = {
  onRequest?(request: SipRequest, tx: ServerTransaction, from: Endpoint): void;
  onAck?(ack: SipRequest, from: Endpoint): void;
};

export function plainLayer(transport: Transport, handlers: Handlers = {}, timers: TimerValues = RFC_TIMERS): TransactionLayer {
  const layer: TransactionLayer = new TransactionLayer(
    transport,
    {
      receive(message, from) {
        if (message.kind === "response") return void layer.matchResponse(message);
        if (message.method === "ACK") return void (layer.matchAck(message) || handlers.onAck?.(message, from));
        const tx = layer.matchRequest(message, from);
        if (tx) handlers.onRequest?.(message, tx, from);
      },
    },
    timers,
  );
  return layer;
}
