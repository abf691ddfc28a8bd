// Assembles a SIP node: transport, transaction layer, B2BUA, the whitelist copy and its
// refresh loop. main.ts runs one from the environment; tests start one in-process.
import { B2bua } from "./b2bua/b2bua.ts";
import type { SipNodeConfig } from "./config.ts";
import { HubSocket } from "./control/hub-socket.ts";
import { WhitelistFilter } from "./control/whitelist.ts";
import { MediaEngine } from "./media/engine.ts";
import { DestinationMonitor } from "./monitor/monitor.ts";
import { sendOptions } from "./monitor/options-pinger.ts";
import type { HubCommand } from "../schema/node-api.ts";
import { workerClient } from "./control/worker-client.ts";
import { RFC_TIMERS, TransactionLayer, type TimerValues } from "./sip/transactions.ts";
import { dialTls, TcpTransport } from "./sip/tcp-transport.ts";
import { TransportSet, UdpTransport } from "./sip/transport.ts";

export type SipNode = {
  b2bua: B2bua;
  media: MediaEngine;
  hub: HubSocket;
  monitor: DestinationMonitor;
  layer: TransactionLayer;
  whitelist: WhitelistFilter;
  port: number;
  stop(): Promise<void>;
};

export async function startSipNode(
  config: SipNodeConfig,
  options: { timers?: TimerValues; whitelistPollMs?: number; monitorIntervalMs?: number } = {},
): Promise<SipNode> {
  const log = (message: string) => console.error(`[sip-node ${config.nodeId}] ${message}`);
  const worker = workerClient(config.worker);
  const whitelist = new WhitelistFilter();
  await whitelist.refresh(worker);
  const udp = await UdpTransport.bind(config.sip.bind, config.sip.port, config.sip.publicAddress);
  // TCP on the same port number as UDP (an ephemeral UDP port in tests gives TCP the same number).
  const tcp = await TcpTransport.bind(config.sip.bind, udp.local.port, config.sip.publicAddress);
  const tls = TcpTransport.outbound("tls", udp.local, dialTls(config.tls));
  const transport = new TransportSet(udp, { tcp, tls });
  const media = new MediaEngine({ ...config.media, publicAddress: config.sip.publicAddress }, worker, log);
  media.uploadLeftovers().catch((err: unknown) => log(`spooled media from an earlier run: ${String(err)}`));
  const b2bua = new B2bua({
    worker,
    media,
    whitelist,
    nodeId: config.nodeId,
    publicAddress: config.sip.publicAddress,
    noAnswerSeconds: config.noAnswerSeconds,
    callsPerSecondPerSource: config.callsPerSecondPerSource,
    log,
  });
  const layer = new TransactionLayer(transport, b2bua, options.timers ?? RFC_TIMERS);
  b2bua.attach(layer);
  layer.onInternalError = (err, from) => log(`dropped a message from ${from.address}:${from.port}: ${String(err)}`);

  const local = { address: config.sip.publicAddress, port: transport.local.port };
  const monitor = new DestinationMonitor({ layer, local, worker, log });
  monitor.start(options.monitorIntervalMs ?? 30_000);
  // Commands from the Worker, over the NodeHub socket.
  const commands = async (command: HubCommand): Promise<Record<string, unknown>> => {
    switch (command.type) {
      case "options":
        return sendOptions(layer, local, command);
      case "hangup":
        return { hung_up: b2bua.hangUp(command.call_id) };
      case "stats": {
        const legs = b2bua.mediaStats(command.call_id);
        return {
          active_calls: b2bua.activeCalls,
          transactions: layer.activeTransactions,
          media: legs ? { sampled_at: new Date().toISOString(), legs } : null,
        };
      }
      case "transfer":
        return { ...b2bua.transfer(command.call_id, command.target, command.mode), mode: command.mode, target: command.target };
    }
  };
  const hub = new HubSocket(config, commands, log);

  const poll = setInterval(() => {
    whitelist.refresh(worker).catch((err: unknown) => log(`whitelist refresh failed: ${String(err)}`));
  }, options.whitelistPollMs ?? 2_000);
  return {
    b2bua,
    media,
    hub,
    monitor,
    layer,
    whitelist,
    port: transport.local.port,
    async stop() {
      clearInterval(poll);
      monitor.stop();
      media.stop();
      hub.close();
      await layer.close();
    },
  };
}
