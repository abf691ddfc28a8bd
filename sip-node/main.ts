// The SIP node process: configuration from the environment (validated once), then serve until
// SIGTERM (a graceful drain: no new calls, the calls up get NODE_DRAIN_SECONDS, then exit 0) or
// SIGINT (the same with no drain time: calls up are ended cleanly and reported). A signal during a
// drain can only shorten it (npm start's Ctrl-C sends SIGINT and SIGTERM at once); the drain's
// waits are bounded, so the process always exits.
import { loadSipNodeConfig } from "./config.ts";
import { startSipNode } from "./node.ts";

const config = loadSipNodeConfig(process.env);
const node = await startSipNode(config);
const dialer = node.ws ? `, web dialer ${node.ws.protocol}://${config.sip.bind}:${node.ws.local.port}` : "";
console.log(`SIP node ${config.nodeId} on udp ${config.sip.bind}:${node.port} and tcp${dialer}, Worker ${config.worker.url}`);

const stop = async (drainSeconds?: number) => {
  await node.drain(drainSeconds);
  process.exit(0);
};
process.on("SIGTERM", () => void stop());
process.on("SIGINT", () => void stop(0));
