// Header names and helpers over SipHeaders (RFC 3261 §7.3, §20). Names are case-insensitive
// and several have a compact one-letter form; the parser stores every known name in its
// canonical long form, so lookups here compare canonical names first and fall back to a
// case-insensitive match only for names this table does not know.
import type { SipHeaders, SipMessage } from "./message.ts";

const CANONICAL_NAMES = [
  "Accept",
  "Accept-Contact",
  "Accept-Encoding",
  "Accept-Language",
  "Accept-Resource-Priority",
  "Alert-Info",
  "Allow",
  "Allow-Events",
  "Answer-Mode",
  "Authentication-Info",
  "Authorization",
  "Call-ID",
  "Call-Info",
  "Contact",
  "Content-Disposition",
  "Content-Encoding",
  "Content-Language",
  "Content-Length",
  "Content-Transfer-Encoding",
  "Content-Type",
  "CSeq",
  "Date",
  "Diversion",
  "Error-Info",
  "Event",
  "Expires",
  "Flow-Timer",
  "From",
  "Geolocation",
  "History-Info",
  "Identity",
  "Identity-Info",
  "In-Reply-To",
  "Join",
  "Max-Breadth",
  "Max-Forwards",
  "MIME-Version",
  "Min-Expires",
  "Min-SE",
  "Organization",
  "P-Access-Network-Info",
  "P-Asserted-Identity",
  "P-Called-Party-ID",
  "P-Charge-Info",
  "P-Charging-Vector",
  "P-Early-Media",
  "P-Preferred-Identity",
  "Path",
  "Priority",
  "Privacy",
  "Proxy-Authenticate",
  "Proxy-Authorization",
  "Proxy-Require",
  "RAck",
  "Reason",
  "Record-Route",
  "Refer-Sub",
  "Refer-To",
  "Referred-By",
  "Reject-Contact",
  "Remote-Party-ID",
  "Replaces",
  "Reply-To",
  "Request-Disposition",
  "Require",
  "Resource-Priority",
  "Retry-After",
  "Route",
  "RSeq",
  "Security-Client",
  "Security-Server",
  "Security-Verify",
  "Server",
  "Service-Route",
  "Session-Expires",
  "Session-ID",
  "SIP-ETag",
  "SIP-If-Match",
  "Subject",
  "Subscription-State",
  "Supported",
  "Target-Dialog",
  "Timestamp",
  "To",
  "Unsupported",
  "User-Agent",
  "Via",
  "Warning",
  "WWW-Authenticate",
];

/** Compact forms (RFC 3261 §7.3.3 and the extensions that define one). */
const COMPACT_FORMS: Record<string, string> = {
  a: "Accept-Contact",
  b: "Referred-By",
  c: "Content-Type",
  d: "Request-Disposition",
  e: "Content-Encoding",
  f: "From",
  i: "Call-ID",
  j: "Reject-Contact",
  k: "Supported",
  l: "Content-Length",
  m: "Contact",
  n: "Identity-Info",
  o: "Event",
  r: "Refer-To",
  s: "Subject",
  t: "To",
  u: "Allow-Events",
  v: "Via",
  x: "Session-Expires",
  y: "Identity",
};

// Lookup table: lower-case name (or compact form) → canonical name, in an open-addressing
// hash table probed straight from the message text, so no string is sliced or lower-cased
// for a known name.
const TABLE_SIZE = 1024;
const tableKeys: Array<string | undefined> = new Array(TABLE_SIZE);
const tableNames: Array<string | undefined> = new Array(TABLE_SIZE);

/** Case-folded hash of text[start, end); the same on both sides of the lookup. */
function nameHash(text: string, start: number, end: number): number {
  let h = end - start;
  for (let i = start; i < end; i++) h = (Math.imul(h, 31) + (text.charCodeAt(i) | 0x20)) | 0;
  return h & (TABLE_SIZE - 1);
}

function define(key: string, name: string): void {
  let slot = nameHash(key, 0, key.length);
  while (tableKeys[slot] !== undefined && tableKeys[slot] !== key) slot = (slot + 1) & (TABLE_SIZE - 1);
  tableKeys[slot] = key;
  tableNames[slot] = name;
}

for (const name of CANONICAL_NAMES) define(name.toLowerCase(), name);
for (const [short, long] of Object.entries(COMPACT_FORMS)) define(short, long);

/** The canonical name for text[start, end) compared case-insensitively, or null when unknown. */
export function canonicalNameAt(text: string, start: number, end: number): string | null {
  const length = end - start;
  let slot = nameHash(text, start, end);
  for (;;) {
    const key = tableKeys[slot];
    if (key === undefined) return null;
    if (key.length === length) {
      let i = 0;
      while (i < length) {
        let c = text.charCodeAt(start + i);
        if (c >= 65 && c <= 90) c |= 0x20;
        if (c !== key.charCodeAt(i)) break;
        i++;
      }
      if (i === length) return tableNames[slot]!;
    }
    slot = (slot + 1) & (TABLE_SIZE - 1);
  }
}

/**
 * Headers whose value is a comma-separated list (RFC 3261 §7.3.1): the parser stores one
 * entry per element. Every other header (WWW-Authenticate, Authorization, Date, Call-ID,
 * unknown extensions, ...) keeps its value whole.
 */
export const LIST_HEADERS: ReadonlySet<string> = new Set([
  "Accept",
  "Accept-Contact",
  "Accept-Encoding",
  "Accept-Language",
  "Accept-Resource-Priority",
  "Alert-Info",
  "Allow",
  "Allow-Events",
  "Call-Info",
  "Contact",
  "Content-Encoding",
  "Content-Language",
  "Diversion",
  "Error-Info",
  "Geolocation",
  "History-Info",
  "In-Reply-To",
  "P-Asserted-Identity",
  "P-Preferred-Identity",
  "Path",
  "Proxy-Require",
  "Reason",
  "Record-Route",
  "Reject-Contact",
  "Remote-Party-ID",
  "Request-Disposition",
  "Require",
  "Resource-Priority",
  "Route",
  "Security-Client",
  "Security-Server",
  "Security-Verify",
  "Service-Route",
  "Supported",
  "Unsupported",
  "Via",
  "Warning",
]);

/** The canonical long form of a header name ("v" → "Via", "call-id" → "Call-ID"); unknown names as given. */
export function canonicalName(name: string): string {
  return canonicalNameAt(name, 0, name.length) ?? name;
}

/** Whether the name is one this table knows (so its entries are stored canonically). */
export function isKnownHeader(name: string): boolean {
  return canonicalNameAt(name, 0, name.length) !== null;
}

type HeaderSource = SipHeaders | Pick<SipMessage, "headers">;

const listOf = (source: HeaderSource): SipHeaders => (Array.isArray(source) ? source : source.headers);

/** A matcher for entries named `name`: canonical names compare exactly, others case-insensitively. */
function matcher(name: string): (entryName: string) => boolean {
  const canonical = canonicalName(name);
  const lower = canonical.toLowerCase();
  return (entryName) => entryName === canonical || (entryName.length === canonical.length && entryName.toLowerCase() === lower);
}

/** The first value of a header, or null; `name` in any case or compact form. */
export function header(source: HeaderSource, name: string): string | null {
  const list = listOf(source);
  const canonical = canonicalName(name);
  for (let i = 0; i < list.length; i++) {
    const entry = list[i]!;
    if (entry[0] === canonical) return entry[1];
  }
  const matches = matcher(name);
  for (let i = 0; i < list.length; i++) {
    const entry = list[i]!;
    if (matches(entry[0])) return entry[1];
  }
  return null;
}

/** Every value of a header, in message order. */
export function headers(source: HeaderSource, name: string): string[] {
  const list = listOf(source);
  const matches = matcher(name);
  const values: string[] = [];
  for (let i = 0; i < list.length; i++) {
    const entry = list[i]!;
    if (matches(entry[0])) values.push(entry[1]);
  }
  return values;
}

/** Sets a header to one value: replaces the first entry in place, removes any others, or appends. */
export function setHeader(list: SipHeaders, name: string, value: string): void {
  const canonical = canonicalName(name);
  const matches = matcher(name);
  let found = false;
  for (let i = 0; i < list.length;) {
    if (matches(list[i]![0])) {
      if (found) {
        list.splice(i, 1);
        continue;
      }
      list[i] = [canonical, value];
      found = true;
    }
    i++;
  }
  if (!found) list.push([canonical, value]);
}

/** Removes every entry of a header; returns how many were removed. */
export function removeHeader(list: SipHeaders, name: string): number {
  const matches = matcher(name);
  let kept = 0;
  for (let i = 0; i < list.length; i++) {
    const entry = list[i]!;
    if (!matches(entry[0])) list[kept++] = entry;
  }
  const removed = list.length - kept;
  list.length = kept;
  return removed;
}

/** Appends one entry after all others. */
export function addHeader(list: SipHeaders, name: string, value: string): void {
  list.push([canonicalName(name), value]);
}

/**
 * Adds an entry before the first existing entry of the same name (a new topmost Via or
 * Record-Route), or at the very top of the headers when there is none.
 */
export function addHeaderFirst(list: SipHeaders, name: string, value: string): void {
  const matches = matcher(name);
  let at = 0;
  while (at < list.length && !matches(list[at]![0])) at++;
  list.splice(at === list.length ? 0 : at, 0, [canonicalName(name), value]);
}
