// IP addresses and CIDR ranges. Every address is mapped into the IPv6 space (IPv4 as
// ::ffff:a.b.c.d, RFC 4291 §2.5.5.2) and written as 32 lowercase hex digits, so ranges of
// both families compare as text in D1 and in the TrunkRegistry.

export type Cidr = {
  /** Network address and prefix length, RFC 5952 text for IPv6: "203.0.113.0/24", "2001:db8::/48". */
  canonical: string;
  version: 4 | 6;
  prefixLength: number;
  /** First and last address of the range, 32 hex digits. */
  start: string;
  end: string;
};

export type CidrProblem = { problem: string };

const V4_MAPPED_PREFIX = [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff];

function parseIpv4(text: string): number[] | null {
  const parts = text.split(".");
  if (parts.length !== 4) return null;
  const bytes = parts.map((p) => (/^(0|[1-9]\d{0,2})$/.test(p) ? Number(p) : NaN));
  return bytes.every((b) => b >= 0 && b <= 255) ? bytes : null;
}

function parseIpv6(input: string): number[] | null {
  let text = input;
  // A trailing dotted IPv4 part ("::ffff:192.0.2.1") becomes its two hex words.
  const dotted = /^(.*:)(\d+\.\d+\.\d+\.\d+)$/.exec(text);
  if (dotted) {
    const v4 = parseIpv4(dotted[2]!);
    if (!v4) return null;
    text = `${dotted[1]}${((v4[0]! << 8) | v4[1]!).toString(16)}:${((v4[2]! << 8) | v4[3]!).toString(16)}`;
  }
  const halves = text.split("::");
  if (halves.length > 2) return null;
  const groups = (part: string) => (part === "" ? [] : part.split(":"));
  const left = groups(halves[0]!);
  const right = halves.length === 2 ? groups(halves[1]!) : [];
  if ([...left, ...right].some((g) => !/^[0-9a-fA-F]{1,4}$/.test(g))) return null;
  const zeros = 8 - left.length - right.length;
  if (halves.length === 2 ? zeros < 1 : zeros !== 0) return null;
  const words = [...left, ...Array<string>(zeros).fill("0"), ...right].map((g) => parseInt(g, 16));
  return words.flatMap((w) => [w >> 8, w & 255]);
}

/** 16 bytes in IPv6 space, and the family written, or null for anything that is not an address. */
function parseAddress(text: string): { bytes: number[]; version: 4 | 6 } | null {
  const v4 = parseIpv4(text);
  if (v4) return { bytes: [...V4_MAPPED_PREFIX, ...v4], version: 4 };
  const v6 = parseIpv6(text);
  return v6 ? { bytes: v6, version: 6 } : null;
}

const hex = (bytes: number[]) => bytes.map((b) => b.toString(16).padStart(2, "0")).join("");

/** An address as 32 hex digits in IPv6 space, or null when the text is not an address. */
export function ipToHex(text: string): string | null {
  const parsed = parseAddress(text.trim());
  return parsed ? hex(parsed.bytes) : null;
}

function formatIpv6(bytes: number[]): string {
  const words = Array.from({ length: 8 }, (_, i) => (bytes[2 * i]! << 8) | bytes[2 * i + 1]!);
  // RFC 5952 §4.2: compress the longest run of two or more zero words, the first if tied.
  let best = { at: -1, len: 1 };
  for (let i = 0; i < 8;) {
    let j = i;
    while (j < 8 && words[j] === 0) j++;
    if (j - i > best.len) best = { at: i, len: j - i };
    i = j === i ? i + 1 : j;
  }
  const text = words.map((w) => w.toString(16));
  if (best.at < 0) return text.join(":");
  const left = text.slice(0, best.at).join(":");
  const right = text.slice(best.at + best.len).join(":");
  return `${left}::${right}`;
}

/**
 * Parses "a.b.c.d/n", "v6/n" or a bare address (a single host). Host bits must be zero, so
 * a typo such as 203.0.113.5/24 is caught rather than silently widened.
 */
export function parseCidr(input: string, minimum = { v4: 0, v6: 0 }): Cidr | CidrProblem {
  const text = input.trim();
  const [addressText, lengthText, extra] = text.split("/");
  if (extra !== undefined || !addressText) return { problem: "not an IP address or CIDR range" };
  const address = parseAddress(addressText);
  if (!address) return { problem: "not an IP address or CIDR range" };
  const max = address.version === 4 ? 32 : 128;
  if (lengthText !== undefined && !/^\d{1,3}$/.test(lengthText)) return { problem: "the prefix length must be a number" };
  const prefixLength = lengthText === undefined ? max : Number(lengthText);
  if (prefixLength > max) return { problem: `the prefix length must be at most ${max}` };
  const least = address.version === 4 ? minimum.v4 : minimum.v6;
  if (prefixLength < least) return { problem: `ranges wider than /${least} are not accepted` };

  const bits = prefixLength + (address.version === 4 ? 96 : 0);
  const start = address.bytes.map((b, i) => b & maskByte(bits, i));
  const end = address.bytes.map((b, i) => (b & maskByte(bits, i)) | (~maskByte(bits, i) & 255));
  if (start.some((b, i) => b !== address.bytes[i])) {
    const network = address.version === 4 ? start.slice(12).join(".") : formatIpv6(start);
    return { problem: `host bits are set: did you mean ${network}/${prefixLength} or ${addressText}/${max}?` };
  }
  const network = address.version === 4 ? start.slice(12).join(".") : formatIpv6(start);
  return { canonical: `${network}/${prefixLength}`, version: address.version, prefixLength, start: hex(start), end: hex(end) };
}

function maskByte(bits: number, index: number): number {
  const covered = Math.max(0, Math.min(8, bits - index * 8));
  return (0xff << (8 - covered)) & 0xff;
}

/** Two ranges overlap when each starts before the other ends. */
export const overlaps = (a: { start: string; end: string }, b: { start: string; end: string }) => a.start <= b.end && b.start <= a.end;
