// Assembles a SIP node: transport, transaction layer, B2BUA, the whitelist copy and its
// refresh loop. main.ts runs one from the environment; tests start one in-process.
import { B2bua } from "./b2bua/b2bua.ts";
import type { SipNodeConfig } from "./config.ts";
import { WhitelistFilter } from "./control/whitelist.ts";
import { workerClient } from "./control/worker-client.ts";
import { RFC_TIMERS, TransactionLayer, type TimerValues } from "./sip/transactions.ts";
import { UdpTransport } from "./sip/transport.ts";

export type SipNode = {
  b2bua: B2bua;
  layer: TransactionLayer;
  whitelist: WhitelistFilter;
  port: number;
  stop(): Promise<void>;
};

export async function startSipNode(config: SipNodeConfig, options: { timers?: TimerValues; whitelistPollMs?: number } = {}): Promise<SipNode> {
  const log = (message: string) => console.error(`[sip-node ${config.nodeId}] ${message}`);
  const worker = workerClient(config.worker);
  const whitelist = new WhitelistFilter();
  await whitelist.refresh(worker);
  const transport = await UdpTransport.bind(config.sip.bind, config.sip.port, config.sip.publicAddress);
  const b2bua = new B2bua({ worker, whitelist, nodeId: config.nodeId, publicAddress: config.sip.publicAddress, noAnswerSeconds: config.noAnswerSeconds, log });
  const layer = new TransactionLayer(transport, b2bua, options.timers ?? RFC_TIMERS);
  b2bua.attach(layer);
  layer.onInternalError = (err, from) => log(`dropped a message from ${from.address}:${from.port}: ${String(err)}`);

  const poll = setInterval(() => {
    whitelist.refresh(worker).catch((err: unknown) => log(`whitelist refresh failed: ${String(err)}`));
  }, options.whitelistPollMs ?? 2_000);
  return {
    b2bua,
    layer,
    whitelist,
    port: transport.local.port,
    async stop() {
      clearInterval(poll);
      await transport.close();
    },
  };
}
