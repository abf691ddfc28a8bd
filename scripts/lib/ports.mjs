// Free loopback ports for scripts, benchmarks and tests that start servers side by side.
//
// Ports are drawn at random from 10000-19999, below the kernel's ephemeral range (32768-60999 on
// Linux): a port the kernel hands out (listen on 0, or the source port of any outgoing connection
// by wrangler, workerd, Chromium or sipp) is never one of these, so a port found free here stays
// free until the caller listens on it. Taking an ephemeral port and listening on it seconds later
// raced with those connections (EADDRINUSE in CI). RTP ranges sit at 20000 and above.
import { createSocket } from "node:dgram";
import { createServer } from "node:net";

const LOW = 10_000;
const HIGH = 20_000;
const ATTEMPTS = 50;

const candidate = () => LOW + Math.floor(Math.random() * (HIGH - LOW));

/** Whether a TCP listener can take `port` on 127.0.0.1 right now: answers the port bound, or null. */
function tryTcp(port) {
  return new Promise((resolve) => {
    const server = createServer().listen(port, "127.0.0.1", () => {
      const taken = server.address().port;
      server.close(() => resolve(taken));
    });
    server.on("error", () => resolve(null));
  });
}

/** Whether a UDP socket can bind `port` on 127.0.0.1 right now: answers the port bound, or null. */
function tryUdp(port) {
  return new Promise((resolve) => {
    const socket = createSocket("udp4");
    socket.on("error", () => resolve(null));
    socket.bind(port, "127.0.0.1", () => {
      const taken = socket.address().port;
      socket.close(() => resolve(taken));
    });
  });
}

async function freePort(...checks) {
  for (let attempt = 0; attempt < ATTEMPTS; attempt++) {
    const port = candidate();
    let free = true;
    for (const check of checks) free = free && (await check(port)) === port;
    if (free) return port;
  }
  throw new Error(`no free port in ${LOW}-${HIGH - 1} after ${ATTEMPTS} tries`);
}

/** A TCP port nobody listens on (127.0.0.1). */
export function freeTcpPort() {
  return freePort(tryTcp);
}

/** A UDP port nobody is bound to (127.0.0.1). */
export function freeUdpPort() {
  return freePort(tryUdp);
}

/** A port number free for both UDP and TCP (127.0.0.1): a SIP node listens on both. */
export function freeSipPort() {
  return freePort(tryUdp, tryTcp);
}
