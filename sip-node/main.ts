// The SIP node process: configuration from the environment (validated once), then serve
// until SIGINT or SIGTERM.
import { loadSipNodeConfig } from "./config.ts";
import { startSipNode } from "./node.ts";

const config = loadSipNodeConfig(process.env);
const node = await startSipNode(config);
console.log(`SIP node ${config.nodeId} on udp ${config.sip.bind}:${node.port} and tcp, Worker ${config.worker.url}`);

const stop = async () => {
  await node.stop();
  process.exit(0);
};
process.on("SIGINT", () => void stop());
process.on("SIGTERM", () => void stop());
