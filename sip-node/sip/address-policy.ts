// Where the node may send SIP and RTP. Destinations and SDP addresses come from customers and
// their peers, so without a rule the node would send SIP or a caller's RTP to hosts inside its
// own network (loopback, private, link-local, CGNAT: RFC 6890's special-purpose ranges), and an
// on-demand check would work as a port scanner. Checked after resolution, on the address itself.
import { BlockList, isIP } from "node:net";
import { ipToHex } from "../../schema/cidr.ts";

/** Special-purpose ranges no peer of a carrier service lives in (RFC 6890, RFC 6598, RFC 4193...). */
const REFUSED: Array<[string, number, "ipv4" | "ipv6"]> = [
  ["0.0.0.0", 8, "ipv4"], // "this network"
  ["10.0.0.0", 8, "ipv4"], // private
  ["100.64.0.0", 10, "ipv4"], // carrier-grade NAT
  ["127.0.0.0", 8, "ipv4"], // loopback
  ["169.254.0.0", 16, "ipv4"], // link-local (cloud metadata services live here)
  ["172.16.0.0", 12, "ipv4"], // private
  ["192.0.0.0", 24, "ipv4"], // IETF protocol assignments
  ["192.168.0.0", 16, "ipv4"], // private
  ["198.18.0.0", 15, "ipv4"], // benchmarking
  ["224.0.0.0", 4, "ipv4"], // multicast
  ["240.0.0.0", 4, "ipv4"], // reserved, broadcast
  ["::", 127, "ipv6"], // unspecified and loopback
  ["::", 96, "ipv6"], // IPv4-compatible (deprecated)
  ["100::", 64, "ipv6"], // discard
  ["64:ff9b:1::", 48, "ipv6"], // local-use NAT64
  ["fc00::", 7, "ipv6"], // unique local
  ["fe80::", 10, "ipv6"], // link-local
  ["ff00::", 8, "ipv6"], // multicast
];

const refused = new BlockList();
for (const [network, prefix, type] of REFUSED) refused.addSubnet(network, prefix, type);

/** An IPv4 address carried inside an IPv6 one by NAT64 (64:ff9b::/96) or 6to4 (2002::/16), else null. */
function embeddedIpv4(address: string): string | null {
  const hex = ipToHex(address);
  if (!hex) return null;
  const v4 = hex.startsWith("0064ff9b0000000000000000") ? hex.slice(24) : hex.startsWith("2002") ? hex.slice(4, 12) : null;
  return v4 === null ? null : [0, 2, 4, 6].map((i) => parseInt(v4.slice(i, i + 2), 16)).join(".");
}

export class AddressPolicy {
  private readonly allowed = new BlockList();

  /**
   * `allowedRanges`: CIDRs of the operator's own network the node may reach though they are in a
   * refused range. A node that itself listens on loopback (`npm start`, the tests, the benches:
   * everything on 127.0.0.1) may reach loopback too.
   */
  constructor(allowedRanges: readonly string[], bindAddress: string) {
    for (const range of allowedRanges) {
      const [network, prefix] = range.split("/");
      const family = isIP(network ?? "");
      if (family === 0) throw new Error(`not an address range: ${range}`);
      this.allowed.addSubnet(network!, prefix === undefined ? (family === 4 ? 32 : 128) : Number(prefix), family === 4 ? "ipv4" : "ipv6");
    }
    if (isLoopback(bindAddress)) {
      this.allowed.addSubnet("127.0.0.0", 8, "ipv4");
      this.allowed.addAddress("::1", "ipv6");
    }
  }

  /** Whether the node may send to `address` (an IP literal; anything else is refused). */
  allows(address: string): boolean {
    const family = isIP(address);
    if (family === 0) return false;
    const type = family === 4 ? "ipv4" : "ipv6";
    const embedded = family === 6 ? embeddedIpv4(address) : null;
    if (embedded !== null && refused.check(embedded, "ipv4") && !this.allowed.check(embedded, "ipv4")) return false;
    return !refused.check(address, type) || this.allowed.check(address, type);
  }
}

function isLoopback(address: string): boolean {
  const family = isIP(address);
  if (family === 4) return address.startsWith("127.");
  return family === 6 && ipToHex(address) === `${"0".repeat(31)}1`;
}
