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
