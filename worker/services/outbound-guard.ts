// Where a customer-given URL may lead: https only, to public addresses only (no private ranges,
// loopback, link-local, cloud metadata, multicast or documentation space), checked on every
// delivery against what the name resolves to at that moment, so a name that is repointed after
// it was saved is caught. Redirects are never followed (the adapter answers them as they are).
// Local development may allow http to loopback (OUTBOUND_ALLOW_LOOPBACK).
//
// Hosts are normalised before any check (normaliseHost): brackets dropped, lower case, a name's
// trailing dots dropped ("localhost." is localhost, "metadata.google.internal." an internal name).
// An IPv6 literal or resolved address is parsed into its 8 groups (ipToHex: 32 hex digits, IPv4
// written as ::ffff:a.b.c.d), so every spelling of one address is one value; an address that
// carries an IPv4 address (IPv4-mapped, IPv4-compatible, SIIT-translated, NAT64) is judged by the
// IPv4 address inside it, and the deprecated or translator-only forms are never public anyway.
import { ipToHex, parseCidr, type Cidr } from "../../schema/cidr.ts";
import type { Services } from "./context.ts";

const NOT_PUBLIC = [
  // IPv4 (RFC 6890 special-purpose, plus multicast and reserved)
  "0.0.0.0/8",
  "10.0.0.0/8",
  "100.64.0.0/10",
  "127.0.0.0/8",
  "169.254.0.0/16",
  "172.16.0.0/12",
  "192.0.0.0/24",
  "192.0.2.0/24",
  "192.88.99.0/24",
  "192.168.0.0/16",
  "198.18.0.0/15",
  "198.51.100.0/24",
  "203.0.113.0/24",
  "224.0.0.0/4",
  "240.0.0.0/4",
  // IPv6. ::/96 holds the unspecified and loopback addresses and the deprecated IPv4-compatible
  // addresses (RFC 4291 2.5.5.1: ::7f00:1 is 127.0.0.1 to some stacks); ::ffff:0:0:0/96 the
  // SIIT-translated ones (RFC 2765): neither is routed on the Internet.
  "::/96",
  "::ffff:0:0:0/96",
  "64:ff9b::/96",
  "64:ff9b:1::/48",
  "100::/64",
  "2001::/23",
  "2001:db8::/32",
  "2002::/16",
  "fc00::/7",
  "fe80::/10",
  // Site-local (deprecated by RFC 3879, still honoured by some stacks).
  "fec0::/10",
  "ff00::/8",
].map((text) => parseCidr(text) as Cidr);

const LOOPBACK = ["127.0.0.0/8", "::1/128"].map((text) => parseCidr(text) as Cidr);

const within = (hex: string, ranges: Cidr[]) => ranges.some((r) => r.start <= hex && hex <= r.end);

/** The IPv6 prefixes (first 24 hex digits) whose last 32 bits are an IPv4 address. */
const EMBEDDING_IPV4 = [
  "00000000000000000000ffff", // ::ffff:0:0/96, IPv4-mapped (how ipToHex writes every IPv4 address)
  "000000000000000000000000", // ::/96, IPv4-compatible (deprecated)
  "0000000000000000ffff0000", // ::ffff:0:0:0/96, SIIT-translated
  "0064ff9b0000000000000000", // 64:ff9b::/96, NAT64
];

/** The IPv4 address an IPv6 address carries, as ipToHex writes IPv4 (::ffff:a.b.c.d), or null. */
function embeddedIpv4(hex: string): string | null {
  const tail = hex.slice(24);
  if (!EMBEDDING_IPV4.includes(hex.slice(0, 24))) return null;
  // :: and ::1 are IPv6's own unspecified and loopback addresses, not 0.0.0.0 and 0.0.0.1.
  if (hex.startsWith("000000000000000000000000") && tail <= "00000001") return null;
  return `00000000000000000000ffff${tail}`;
}

/** How an address (32 hex digits) is judged: the address itself, and the IPv4 address it carries. */
function classify(hex: string): "loopback" | "private" | "public" {
  // Loopback is 127.0.0.0/8 (as ::ffff:127.x.y.z in any spelling) or ::1, never another embedding.
  if (within(hex, LOOPBACK)) return "loopback";
  const v4 = embeddedIpv4(hex);
  if (within(hex, NOT_PUBLIC) || (v4 !== null && within(v4, NOT_PUBLIC))) return "private";
  return "public";
}

/** Names that never lead anywhere public, whatever a resolver says. */
const PRIVATE_NAME = /(^|\.)(localhost|local|internal|intranet|lan|home\.arpa)$/;

/**
 * A URL's host as the guard judges it: brackets of an IPv6 literal dropped, lower case, and a
 * name's trailing dots dropped (a fully qualified "localhost." is localhost).
 */
export function normaliseHost(hostname: string): string {
  return hostname
    .replace(/^\[|\]$/g, "")
    .toLowerCase()
    .replace(/\.+$/, "");
}

export type UrlVerdict = { ok: true; url: URL } | { ok: false; error: string };

/** The URL's form alone (scheme, host, credentials): checked when it is saved. */
export function checkUrlForm(text: string, allowLoopback: boolean): UrlVerdict {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return { ok: false, error: "url_invalid" };
  }
  if (url.username || url.password) return { ok: false, error: "url_has_credentials" };
  const host = normaliseHost(url.hostname);
  const loopback = isLoopbackHost(host);
  if (url.protocol !== "https:" && !(url.protocol === "http:" && allowLoopback && loopback)) {
    return { ok: false, error: "url_not_https" };
  }
  if (loopback) return allowLoopback ? { ok: true, url } : { ok: false, error: "url_private_address" };
  const literal = ipToHex(host);
  if (literal && classify(literal) !== "public") return { ok: false, error: "url_private_address" };
  if (!literal && (PRIVATE_NAME.test(host) || !host.includes("."))) return { ok: false, error: "url_private_address" };
  return { ok: true, url };
}

/** `host` normalised (normaliseHost). */
function isLoopbackHost(host: string): boolean {
  if (host === "localhost") return true;
  const hex = ipToHex(host);
  return hex !== null && classify(hex) === "loopback";
}

/** Form and, for a name, every address it resolves to now. Run before every delivery. */
export async function checkDeliveryUrl(s: Services, text: string): Promise<UrlVerdict> {
  const allowLoopback = s.config.OUTBOUND_ALLOW_LOOPBACK;
  const form = checkUrlForm(text, allowLoopback);
  if (!form.ok) return form;
  const host = normaliseHost(form.url.hostname);
  if (ipToHex(host) || isLoopbackHost(host)) return form;
  // RFC 6761: .invalid never resolves; no need to ask.
  if (/(^|\.)invalid$/.test(host)) return { ok: false, error: "url_unresolvable" };
  let addresses: string[];
  try {
    addresses = await s.outbound.resolve(host);
  } catch {
    return { ok: false, error: "url_unresolvable" };
  }
  if (addresses.length === 0) return { ok: false, error: "url_unresolvable" };
  const refused = addresses.some((a) => {
    const hex = ipToHex(a);
    if (!hex) return true;
    const kind = classify(hex);
    return kind === "loopback" ? !allowLoopback : kind === "private";
  });
  return refused ? { ok: false, error: "url_private_address" } : form;
}
