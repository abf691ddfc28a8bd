// The SIP node process: configuration from the environment (validated once), then serve until
// SIGTERM (a graceful drain: no new calls, the calls up get NODE_DRAIN_SECONDS, then exit 0) or
// SIGINT (the same at once: calls up are ended cleanly and reported). A second signal exits now.
import { loadSipNodeConfig } from "./config.ts";
import { startSipNode } from "./node.ts";

const config = loadSipNodeConfig(process.env);
const node = await startSipNode(config);
console.log(`SIP node ${config.nodeId} on udp ${config.sip.bind}:${node.port} and tcp, Worker ${config.worker.url}`);

let signalled = false;
const stop = async (drainSeconds?: number) => {
  if (signalled) process.exit(1);
  signalled = true;
  await node.drain(drainSeconds);
  process.exit(0);
};
process.on("SIGTERM", () => void stop());
process.on("SIGINT", () => void stop(0));
