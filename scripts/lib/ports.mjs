// Free loopback ports for scripts, benchmarks and tests that start servers side by side.
import { createSocket } from "node:dgram";
import { createServer } from "node:net";

/** A TCP port nobody listens on right now (127.0.0.1). */
export function freeTcpPort() {
  return new Promise((resolve, reject) => {
    const server = createServer().listen(0, "127.0.0.1", () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
    server.on("error", reject);
  });
}

/** A UDP port nobody is bound to right now (127.0.0.1). */
export function freeUdpPort() {
  return new Promise((resolve, reject) => {
    const socket = createSocket("udp4");
    socket.on("error", reject);
    socket.bind(0, "127.0.0.1", () => {
      const { port } = socket.address();
      socket.close(() => resolve(port));
    });
  });
}

/** A port number free for both UDP and TCP right now (127.0.0.1): a SIP node listens on both. */
export async function freeSipPort() {
  for (let attempt = 1; ; attempt++) {
    const port = await freeUdpPort();
    const free = await new Promise((resolve) => {
      const server = createServer().listen(port, "127.0.0.1", () => server.close(() => resolve(true)));
      server.on("error", () => resolve(false));
    });
    if (free || attempt >= 10) return port;
  }
}
