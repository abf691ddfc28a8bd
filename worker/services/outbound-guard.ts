// Where a customer-given URL may lead: https only, to public addresses only (no private ranges,
// loopback, link-local, cloud metadata, multicast or documentation space), checked on every
// delivery against what the name resolves to at that moment, so a name that is repointed after
// it was saved is caught. Redirects are never followed (the adapter answers them as they are).
// Local development may allow http to loopback (OUTBOUND_ALLOW_LOOPBACK).
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
  // IPv6
  "::/127",
  "64:ff9b::/96",
  "64:ff9b:1::/48",
  "100::/64",
  "2001::/23",
  "2001:db8::/32",
  "2002::/16",
  "fc00::/7",
  "fe80::/10",
  "ff00::/8",
].map((text) => parseCidr(text) as Cidr);

const LOOPBACK = ["127.0.0.0/8", "::1/128"].map((text) => parseCidr(text) as Cidr);

const within = (hex: string, ranges: Cidr[]) => ranges.some((r) => r.start <= hex && hex <= r.end);

/** Names that never lead anywhere public, whatever a resolver says. */
const PRIVATE_NAME = /(^|\.)(localhost|local|internal|intranet|lan|home\.arpa)$/i;

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
  const host = url.hostname.replace(/^\[|\]$/g, "");
  const loopback = isLoopbackHost(host);
  if (url.protocol !== "https:" && !(url.protocol === "http:" && allowLoopback && loopback)) {
    return { ok: false, error: "url_not_https" };
  }
  if (loopback) return allowLoopback ? { ok: true, url } : { ok: false, error: "url_private_address" };
  const literal = ipToHex(host);
  if (literal && within(literal, NOT_PUBLIC)) return { ok: false, error: "url_private_address" };
  if (!literal && (PRIVATE_NAME.test(host) || !host.includes("."))) return { ok: false, error: "url_private_address" };
  return { ok: true, url };
}

function isLoopbackHost(host: string): boolean {
  if (host.toLowerCase() === "localhost") return true;
  const hex = ipToHex(host);
  return hex !== null && within(hex, LOOPBACK);
}

/** Form and, for a name, every address it resolves to now. Run before every delivery. */
export async function checkDeliveryUrl(s: Services, text: string): Promise<UrlVerdict> {
  const allowLoopback = s.config.OUTBOUND_ALLOW_LOOPBACK;
  const form = checkUrlForm(text, allowLoopback);
  if (!form.ok) return form;
  const host = form.url.hostname.replace(/^\[|\]$/g, "");
  if (ipToHex(host) || isLoopbackHost(host)) return form;
  // RFC 6761: .invalid never resolves; no need to ask.
  if (/(^|\.)invalid$/i.test(host)) return { ok: false, error: "url_unresolvable" };
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
    return within(hex, LOOPBACK) ? !allowLoopback : within(hex, NOT_PUBLIC);
  });
  return refused ? { ok: false, error: "url_private_address" } : form;
}
