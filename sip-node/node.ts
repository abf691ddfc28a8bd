// Assembles a SIP node: transport, transaction layer, B2BUA, the test call originator, the one
// registry of the calls they carry, the whitelist copy and its refresh loop, the call reporter to
// the Worker's call ledger, and (CLI_LISTEN_PORT) the hosted-number listener on a port of its own.
// main.ts runs one from the environment; tests start one in-process.
import { randomUUID } from "node:crypto";
import { join } from "node:path";
import { B2bua } from "./b2bua/b2bua.ts";
import { CallRouter } from "./calls/call-router.ts";
import { CliListener } from "./cli/listener.ts";
import { CallRegistry } from "./calls/registry.ts";
import type { SipNodeConfig } from "./config.ts";
import { CallReporter } from "./control/call-reporter.ts";
import { HubSocket } from "./control/hub-socket.ts";
import { WhitelistFilter } from "./control/whitelist.ts";
import { MediaEngine } from "./media/engine.ts";
import { IdentityVerifier } from "./screening/identity-verifier.ts";
import { DestinationMonitor } from "./monitor/monitor.ts";
import { sendOptions } from "./monitor/options-pinger.ts";
import { Originator } from "./origination/originator.ts";
import type { HubCommand } from "../schema/node-api.ts";
import { workerClient } from "./control/worker-client.ts";
import { RFC_TIMERS, TransactionLayer, type TimerValues } from "./sip/transactions.ts";
import { dialTls, TcpTransport } from "./sip/tcp-transport.ts";
import { TransportSet, UdpTransport } from "./sip/transport.ts";
import { WsTransport } from "./webrtc/ws-transport.ts";

export type SipNode = {
  b2bua: B2bua;
  /** Every call the node carries: the B2BUA's and the test calls. */
  calls: CallRegistry;
  /** The test calls this node places (the Worker's originate command). */
  originator: Originator;
  media: MediaEngine;
  hub: HubSocket;
  monitor: DestinationMonitor;
  layer: TransactionLayer;
  whitelist: WhitelistFilter;
  reporter: CallReporter;
  /** This run of the node: a new one at every start. */
  bootId: string;
  port: number;
  /** The web dialer's WebSocket listener (SIP_WS_PORT), null when there is none. */
  ws: WsTransport | null;
  /** The hosted-number listener of CLI checks (CLI_LISTEN_PORT), null when there is none. */
  cli: CliListener | null;
  /**
   * Stops gracefully (SIGTERM): new calls get 503 with Retry-After, calls up may go on for the
   * drain time and are then ended (node_drain), their reports and media are sent (a bounded
   * wait), and the node stops.
   */
  drain(drainSeconds?: number): Promise<void>;
  stop(): Promise<void>;
};

/** After the drain, how long the node waits for the last reports and uploads before it stops anyway. */
const DRAIN_FLUSH_MS = 10_000;

export async function startSipNode(
  config: SipNodeConfig,
  options: { timers?: TimerValues; whitelistPollMs?: number; monitorIntervalMs?: number } = {},
): Promise<SipNode> {
  const log = (message: string) => console.error(`[sip-node ${config.nodeId}] ${message}`);
  const worker = workerClient(config.worker);
  const bootId = randomUUID();
  const whitelist = new WhitelistFilter();
  await whitelist.refresh(worker);
  const { udp, tcp } = await bindSipPort(config.sip.bind, config.sip.port, config.sip.publicAddress);
  const tls = TcpTransport.outbound("tls", udp.local, dialTls(config.tls));
  const ws = config.sip.ws
    ? await WsTransport.listen({ bind: config.sip.bind, publicAddress: config.sip.publicAddress, ...config.sip.ws })
    : null;
  const transport = new TransportSet(udp, { tcp, tls, ...(ws ? { [ws.protocol]: ws } : {}) });
  const media = new MediaEngine({ ...config.media, publicAddress: config.sip.publicAddress }, worker, log);
  media.uploadLeftovers().catch((err: unknown) => log(`spooled media from an earlier run: ${String(err)}`));
  const calls = new CallRegistry(log);
  const reporter: CallReporter = new CallReporter({
    worker,
    nodeId: config.nodeId,
    bootId,
    journalPath: join(config.media.spoolDir, "call-reports.journal"),
    heartbeatMs: config.heartbeatSeconds * 1000,
    live: () => calls.live(),
    onAnswer: (answer) => calls.applyReportAnswer(answer),
    log,
  });
  const b2bua: B2bua = new B2bua({
    worker,
    reporter,
    bootId,
    media,
    whitelist,
    calls,
    nodeId: config.nodeId,
    publicAddress: config.sip.publicAddress,
    noAnswerSeconds: config.noAnswerSeconds,
    callsPerSecondPerSource: config.callsPerSecondPerSource,
    identity: new IdentityVerifier({ ...config.stir, policy: media.peers, log }),
    log,
  });
  const router = new CallRouter(calls, b2bua);
  const layer = new TransactionLayer(transport, router, options.timers ?? RFC_TIMERS);
  router.attach(layer);
  b2bua.attach(layer);
  layer.onInternalError = (err, from) => log(`dropped a message from ${from.address}:${from.port}: ${String(err)}`);

  const local = { address: config.sip.publicAddress, port: transport.local.port };
  const originator: Originator = new Originator({
    layer,
    worker,
    reporter,
    media,
    nodeId: config.nodeId,
    bootId,
    local,
    calls,
    renewCredit: (atMs) => reporter.renewBy(atMs),
    log,
  });
  const cli = config.cli ? await startCliListener(config, { worker, media, timers: options.timers, log }) : null;
  const monitor = new DestinationMonitor({ layer, local, worker, log });
  monitor.start(options.monitorIntervalMs ?? 30_000);
  // Commands from the Worker, over the NodeHub socket.
  const commands = async (command: HubCommand): Promise<Record<string, unknown>> => {
    switch (command.type) {
      case "options":
        return sendOptions(layer, local, command);
      case "hangup":
        return { hung_up: calls.hangUp(command.call_id) };
      case "stats": {
        const legs = calls.mediaStats(command.call_id);
        // The messages so far, for the inspector's ladder while the call is up (null: not carried here).
        const ladder = calls.ladder(command.call_id);
        return {
          active_calls: calls.active,
          transactions: layer.activeTransactions,
          media: legs ? { sampled_at: new Date().toISOString(), legs } : null,
          ladder,
        };
      }
      case "transfer":
        return { ...b2bua.transfer(command.call_id, command.target, command.mode), mode: command.mode, target: command.target };
      case "originate":
        return originator.originate(command);
      case "cancel_test_call":
        return { cancelled: originator.cancel(command.test_call_id) };
    }
  };
  const hub = new HubSocket(config, commands, log);

  reporter.start();

  const poll = setInterval(() => {
    whitelist.refresh(worker).catch((err: unknown) => log(`whitelist refresh failed: ${String(err)}`));
  }, options.whitelistPollMs ?? 2_000);
  let stopping: Promise<void> | null = null;
  const stop = () =>
    (stopping ??= (async () => {
      clearInterval(poll);
      monitor.stop();
      media.stop();
      reporter.stop();
      hub.close();
      await cli?.close();
      await layer.close();
    })());
  let draining: Promise<void> | null = null;
  /** When the calls still up are ended; a later, shorter drain (a second signal) brings it forward. */
  let drainDeadline = Infinity;
  const drain = (drainSeconds = config.drainSeconds) => {
    drainDeadline = Math.min(drainDeadline, Date.now() + drainSeconds * 1000);
    return (draining ??= (async () => {
      b2bua.stopTakingCalls(Math.max(drainSeconds, 1));
      originator.stopTakingCalls();
      cli?.stopTakingCalls();
      const up = () => calls.active + (cli?.active ?? 0);
      log(`draining: no new calls; ${up()} call(s) up may go on for ${drainSeconds} s`);
      while (up() > 0 && Date.now() < drainDeadline) await pause(Math.min(100, drainDeadline - Date.now()));
      if (up() > 0) {
        log(`drain time over: ending ${up()} call(s)`);
        calls.hangUpAll("node_drain");
        cli?.hangUpAll();
      }
      const flushBy = Date.now() + DRAIN_FLUSH_MS;
      await calls.settled(DRAIN_FLUSH_MS);
      if (!(await reporter.flush(Math.max(0, flushBy - Date.now())))) log(`stopped with ${reporter.backlog} call event(s) unsent`);
      await stop();
    })());
  };
  return {
    b2bua,
    calls,
    originator,
    media,
    hub,
    monitor,
    layer,
    whitelist,
    reporter,
    bootId,
    port: transport.local.port,
    ws,
    cli,
    drain,
    stop,
  };
}

/** The hosted-number listener on UDP and TCP at CLI_LISTEN_PORT of the SIP bind address. */
async function startCliListener(
  config: SipNodeConfig,
  parts: Pick<ConstructorParameters<typeof CliListener>[0], "worker" | "media" | "timers" | "log">,
): Promise<CliListener> {
  const { udp, tcp } = await bindSipPort(config.sip.bind, config.cli!.port, config.sip.publicAddress);
  const listener = new CliListener({
    ...parts,
    transport: new TransportSet(udp, { tcp }),
    nodeId: config.nodeId,
    publicAddress: config.sip.publicAddress,
  });
  parts.log(`hosted-number listener (CLI checks) on udp and tcp ${config.sip.bind}:${listener.port}`);
  return listener;
}

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * UDP and TCP on one port number. With port 0 (tests), the ephemeral UDP port's number may be
 * taken for TCP by someone else (an outgoing connection's local port): another number is tried.
 */
async function bindSipPort(bind: string, port: number, publicAddress: string): Promise<{ udp: UdpTransport; tcp: TcpTransport }> {
  for (let attempt = 1; ; attempt++) {
    const udp = await UdpTransport.bind(bind, port, publicAddress);
    try {
      return { udp, tcp: await TcpTransport.bind(bind, udp.local.port, publicAddress) };
    } catch (err) {
      await udp.close();
      if (port !== 0 || attempt >= 10 || (err as NodeJS.ErrnoException).code !== "EADDRINUSE") throw err;
    }
  }
}
