// RTP ports from the configured range: an even port for RTP and the next one for RTCP
// (RFC 3550 §11), drawn at random (crypto) so nobody can predict the next call's ports and spray
// them, and so a port just released is rarely reused at once (late packets of the old call would
// land in the new one).
import { randomInt } from "node:crypto";
import { createSocket, type Socket } from "node:dgram";
import { lookup } from "node:dns";
import { isIP } from "node:net";

/** Random draws before walking the range in order. */
const RANDOM_DRAWS = 16;

export type PortPair = { rtp: Socket; rtcp: Socket; port: number };

export class PortAllocator {
  private readonly min: number;
  private readonly max: number;
  private readonly inUse = new Set<number>();
  private readonly bindAddress: string;

  constructor(range: { portMin: number; portMax: number }, bindAddress: string) {
    this.min = range.portMin + (range.portMin % 2);
    this.max = range.portMax - 1;
    this.bindAddress = bindAddress;
  }

  get capacity(): number {
    return Math.floor((this.max - this.min) / 2) + 1;
  }

  get used(): number {
    return this.inUse.size;
  }

  /**
   * Binds a free pair at random; throws when the whole range is taken. Random draws first, then
   * (a range nearly full) a walk over every pair from a random one, so a free pair is always found.
   */
  async allocate(): Promise<PortPair> {
    const capacity = this.capacity;
    if (capacity <= 0) throw new Error("no free RTP port in the configured range");
    const start = randomInt(capacity);
    for (let tries = 0; tries < capacity + RANDOM_DRAWS; tries++) {
      const index = tries < RANDOM_DRAWS ? randomInt(capacity) : (start + tries - RANDOM_DRAWS) % capacity;
      const port = this.min + 2 * index;
      if (this.inUse.has(port)) continue;
      this.inUse.add(port);
      const pair = await this.bindPair(port).catch(() => null);
      if (pair) return pair;
      // Something outside the node holds it: skip it this round.
      this.inUse.delete(port);
    }
    throw new Error("no free RTP port in the configured range");
  }

  /**
   * A free port of the range for a socket another library binds itself (werift's ICE socket):
   * the RTP socket is closed for it to bind, the RTCP one keeps the pair held until `release()`.
   */
  async lend(): Promise<{ port: number; release(): void }> {
    const pair = await this.allocate();
    await new Promise<void>((resolve) => pair.rtp.close(() => resolve()));
    let released = false;
    const release = () => {
      if (released) return;
      released = true;
      pair.rtcp.close();
      this.inUse.delete(pair.port);
    };
    return { port: pair.port, release };
  }

  release(pair: PortPair): void {
    pair.rtp.close();
    pair.rtcp.close();
    this.inUse.delete(pair.port);
  }

  private async bindPair(port: number): Promise<PortPair> {
    const rtp = await this.bind(port);
    const rtcp = await this.bind(port + 1).catch((err: unknown) => {
      rtp.close();
      throw err;
    });
    return { rtp, rtcp, port };
  }

  private bind(port: number): Promise<Socket> {
    const socket = createSocket({
      type: this.bindAddress.includes(":") ? "udp6" : "udp4",
      recvBufferSize: 256 << 10,
      lookup: literalLookup,
    });
    return new Promise((resolve, reject) => {
      socket.once("error", (err) => {
        socket.close();
        reject(err);
      });
      socket.bind(port, this.bindAddress, () => {
        socket.removeAllListeners("error");
        socket.on("error", () => {});
        resolve(socket);
      });
    });
  }
}

/**
 * Peers are addressed by IP literal (from SDP and the packets' sources): answering them at once
 * spares every send the tick dgram's default lookup costs. A host name still goes to DNS.
 */
function literalLookup(hostname: string, options: unknown, callback: (err: Error | null, address: string, family: number) => void): void {
  const family = isIP(hostname);
  if (family !== 0) return callback(null, hostname, family);
  lookup(hostname, options as number, callback as never);
}
