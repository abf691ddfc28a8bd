// SIP message parser (RFC 3261 §7, §18.3, §20, §25) for one UDP datagram, plus the parsers
// of the structured header values the node reads (Via, name-addr, CSeq, URIs).
//
// Speed and safety: the header section is decoded (UTF-8; invalid sequences become U+FFFD)
// to a string once and walked with indexOf and per-character table lookups; the only
// regular expressions are fixed-shape or single-class ones (Date, SIP version, Call-ID), so
// nothing backtracks. Every loop is bounded by the input, and the input by ParseLimits.
// Structured values are parsed on demand by the caller (parseVia, parseNameAddr, ...),
// except that what a message cannot be accepted without (start line, To, From, CSeq,
// Call-ID, Max-Forwards, every Via and Contact, Content-Length, Date) is checked once here,
// without building objects. The body is copied out of the datagram, so the caller may reuse
// its receive buffer; like a Buffer, the body may be a view on a larger pooled ArrayBuffer
// (use body itself, not body.buffer).
import { isIPv6 } from "node:net";
import { LIST_HEADERS, canonicalNameAt } from "./headers.ts";
import {
  DEFAULT_LIMITS,
  SipParseError,
  type CSeq,
  type NameAddr,
  type ParseLimits,
  type SipHeaders,
  type SipMessage,
  type Via,
} from "./message.ts";

/**
 * A message whose framing was read but whose content is invalid (missing mandatory header,
 * bad Via, CSeq mismatch, unsupported version, ...). `partial` holds what was read, so a
 * transport can still answer a request with `status` (RFC 3261 §8.2, §21.4.1).
 */
export class SipMessageError extends SipParseError {
  readonly partial: SipMessage;
  constructor(message: string, status: number, partial: SipMessage) {
    super(message, status);
    this.partial = partial;
  }
}

/** A parsed SIP, SIPS or tel URI (RFC 3261 §19.1, RFC 3966). */
export type SipUri = {
  scheme: "sip" | "sips" | "tel";
  /** Percent-decoded user part; for tel URIs the telephone number. */
  user: string | null;
  /** Percent-decoded password, if the user part had one. */
  password: string | null;
  /** As written; IPv6 references keep their brackets; "" for tel URIs. */
  host: string;
  port: number | null;
  /** URI parameters: lower-case names, percent-decoded values, null for a valueless one. */
  params: Record<string, string | null>;
  /** URI headers (after "?"), percent-decoded. */
  headers: Record<string, string>;
};

/** The start line and header section of a message, read but not yet validated. */
export type MessageHead = {
  kind: "request" | "response";
  method: string;
  uri: string;
  /** The version as written (requests); "SIP/2.0" for responses. */
  version: string;
  status: number;
  reason: string;
  headers: SipHeaders;
  contentLength: number | null;
};

// ---------------------------------------------------------------------------------------
// Character classes (RFC 3261 §25.1)

const C_TOKEN = 1;
const C_UNRESERVED = 2;
const C_USER = 4;
const C_PASSWORD = 8;
const C_PARAM = 16;
const C_HNV = 32;
const C_URIC = 64;
const C_HOST = 128;
const C_GENVALUE = 256;
const C_TEL = 512;

const CHARS = new Uint16Array(128);
function mark(chars: string, flags: number): void {
  for (let i = 0; i < chars.length; i++) CHARS[chars.charCodeAt(i)]! |= flags;
}
const ALNUM = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
const URI_COMPONENTS = C_UNRESERVED | C_USER | C_PASSWORD | C_PARAM | C_HNV | C_URIC;
mark(ALNUM, C_TOKEN | URI_COMPONENTS | C_HOST | C_GENVALUE);
mark("-_.!~*'()", URI_COMPONENTS);
mark("-.!%*_+`'~", C_TOKEN | C_GENVALUE);
mark("[]:", C_GENVALUE);
mark("-._", C_HOST);
mark("&=+$,;?/", C_USER);
mark("&=+$,", C_PASSWORD);
mark("[]/:&+$", C_PARAM);
mark("[]/?:+$", C_HNV);
mark(";/?:@&=+$,[]", C_URIC);
mark("0123456789ABCDEFabcdef*#+-.()", C_TEL);

const SP = 32;
const HTAB = 9;
const CR = 13;
const LF = 10;

const isWs = (c: number): boolean => c === SP || c === HTAB;
const isDigit = (c: number): boolean => c >= 48 && c <= 57;
const isHex = (c: number): boolean => (c >= 48 && c <= 57) || (c >= 65 && c <= 70) || (c >= 97 && c <= 102);
const has = (c: number, flag: number): boolean => c < 128 && (CHARS[c]! & flag) !== 0;

function skipWs(s: string, p: number, end: number): number {
  while (p < end && isWs(s.charCodeAt(p))) p++;
  return p;
}

function scanToken(s: string, p: number, end: number): number {
  while (p < end && has(s.charCodeAt(p), C_TOKEN)) p++;
  return p;
}

/** Scans URI characters of a class, accepting %HH escapes; throws on a broken escape. */
function scanUri(s: string, p: number, end: number, flag: number): number {
  while (p < end) {
    const c = s.charCodeAt(p);
    if (has(c, flag)) p++;
    else if (c === 37) {
      if (!(p + 2 < end && isHex(s.charCodeAt(p + 1)) && isHex(s.charCodeAt(p + 2)))) throw bad("invalid % escape in URI");
      p += 3;
    } else break;
  }
  return p;
}

const bad = (message: string, status = 400): SipParseError => new SipParseError(message, status);

/**
 * Records a parameter (a repeated name keeps its last value). Records are plain objects
 * (fast properties); "__proto__" becomes an own property and never touches the prototype.
 */
function setParam<T>(record: Record<string, T>, name: string, value: T): void {
  if (name === "__proto__") Object.defineProperty(record, name, { value, enumerable: true, writable: true, configurable: true });
  else record[name] = value;
}

/** Cuts untrusted text for error messages. */
const clip = (s: string): string => JSON.stringify(s.length > 64 ? `${s.slice(0, 64)}...` : s);

function isToken(s: string): boolean {
  return s.length > 0 && scanToken(s, 0, s.length) === s.length;
}

/** Percent-decodes a URI component (UTF-8 sequences; invalid UTF-8 byte by byte). */
function pctDecode(s: string): string {
  if (s.indexOf("%") === -1) return s;
  try {
    return decodeURIComponent(s);
  } catch {
    let out = "";
    for (let i = 0; i < s.length; i++) {
      if (s.charCodeAt(i) === 37) {
        out += String.fromCharCode(parseInt(s.slice(i + 1, i + 3), 16));
        i += 2;
      } else out += s[i];
    }
    return out;
  }
}

/** Index of the ":" ending a valid URI scheme at s[start] (ALPHA *(ALPHA/DIGIT/+/-/.)) before end, or -1. */
function schemeEnd(s: string, start: number, end: number): number {
  const first = s.charCodeAt(start) | 0x20;
  if (!(first >= 97 && first <= 122)) return -1;
  for (let i = start + 1; i < end; i++) {
    const c = s.charCodeAt(i);
    if (c === 58) return i;
    const l = c | 0x20;
    if (!((l >= 97 && l <= 122) || isDigit(c) || c === 43 || c === 45 || c === 46)) return -1;
  }
  return -1;
}

/** Whether s[start, end) is an absoluteURI by RFC 3261 §25.1 (scheme ":" then URI characters). */
function isAbsoluteUri(s: string, start: number, end: number): boolean {
  const colon = schemeEnd(s, start, end);
  if (colon < 0 || colon + 1 >= end) return false;
  return scanUri(s, colon + 1, end, C_URIC) === end;
}

// ---------------------------------------------------------------------------------------
// URIs

/** Scans a host (hostname, IPv4 address or bracketed IPv6 reference) at p; returns its end. */
function scanHost(s: string, p: number, end: number): number {
  if (s.charCodeAt(p) === 91) {
    const close = s.indexOf("]", p);
    // 45 characters is the longest IPv6 text form; the bound keeps isIPv6 on short input.
    if (close < 0 || close >= end || close - p - 1 > 45 || !isIPv6(s.slice(p + 1, close))) {
      throw bad("invalid IPv6 reference");
    }
    return close + 1;
  }
  let q = p;
  while (q < end && has(s.charCodeAt(q), C_HOST)) q++;
  if (q === p) throw bad("missing host");
  return q;
}

/**
 * Checks 1-5 digits of a port number (0-65535) at p; returns their end. The scanners return
 * only where they stopped: a caller that builds a value reads it from [p, end) itself
 * (portValue, unquote), so no scan state outlives a call.
 */
function scanPort(s: string, p: number, end: number): number {
  let q = p;
  let port = 0;
  while (q < end && q - p < 6) {
    const c = s.charCodeAt(q);
    if (!isDigit(c)) break;
    port = port * 10 + (c - 48);
    q++;
  }
  if (q === p || q - p > 5 || port > 65_535) throw bad("invalid port");
  return q;
}

/** The value of the port digits scanPort checked in s[p, end). */
function portValue(s: string, p: number, end: number): number {
  let port = 0;
  for (let i = p; i < end; i++) port = port * 10 + (s.charCodeAt(i) - 48);
  return port;
}

/** URI parameters (";name[=value]") from p into params (null: only checked); returns where they end. */
function scanUriParams(s: string, p: number, end: number, params: Record<string, string | null> | null): number {
  while (p < end && s.charCodeAt(p) === 59) {
    const nameStart = p + 1;
    const nameEnd = scanUri(s, nameStart, end, C_PARAM);
    if (nameEnd === nameStart) throw bad("empty URI parameter");
    p = nameEnd;
    let valueEnd = -1;
    if (p < end && s.charCodeAt(p) === 61) {
      valueEnd = scanUri(s, p + 1, end, C_PARAM);
      if (valueEnd === p + 1) throw bad("empty URI parameter value");
    }
    if (params !== null) {
      const name = pctDecode(s.slice(nameStart, nameEnd)).toLowerCase();
      setParam(params, name, valueEnd < 0 ? null : pctDecode(s.slice(nameEnd + 1, valueEnd)));
    }
    if (valueEnd >= 0) p = valueEnd;
  }
  return p;
}

/**
 * Reads a sip/sips/tel URI; with `build`, returns its parts, else only checks it and returns
 * whether it carries URI headers. Throws SipParseError 416 for another well-formed scheme, 400
 * when malformed.
 */
function readUri(uri: string, build: true): SipUri;
function readUri(uri: string, build: false): boolean;
function readUri(uri: string, build: boolean): SipUri | boolean {
  const end = uri.length;
  const colon = schemeEnd(uri, 0, end);
  if (colon < 0) throw bad(`invalid URI ${clip(uri)}`);
  const scheme = uri.slice(0, colon).toLowerCase();
  const params: Record<string, string | null> | null = build ? {} : null;
  let p = colon + 1;
  if (scheme === "tel") {
    let q = p;
    while (q < end) {
      const c = uri.charCodeAt(q);
      if (has(c, C_TEL)) q++;
      else if (c === 37) q = scanUri(uri, q, Math.min(q + 3, end), 0);
      else break;
    }
    if (q === p) throw bad(`invalid tel URI ${clip(uri)}`);
    const number = build ? pctDecode(uri.slice(p, q)) : "";
    p = scanUriParams(uri, q, end, params);
    if (p !== end) throw bad(`invalid tel URI ${clip(uri)}`);
    return params === null ? false : { scheme, user: number, password: null, host: "", port: null, params, headers: {} };
  }
  if (scheme !== "sip" && scheme !== "sips") throw bad(`unsupported URI scheme ${clip(scheme)}`, 416);

  let user: string | null = null;
  let password: string | null = null;
  const at = uri.indexOf("@", p);
  if (at >= 0) {
    const userEnd = scanUri(uri, p, at, C_USER);
    if (userEnd === p) throw bad(`empty user part in ${clip(uri)}`);
    if (userEnd < at) {
      if (uri.charCodeAt(userEnd) !== 58) throw bad(`invalid user part in ${clip(uri)}`);
      if (scanUri(uri, userEnd + 1, at, C_PASSWORD) !== at) throw bad(`invalid password in ${clip(uri)}`);
      if (build) password = pctDecode(uri.slice(userEnd + 1, at));
    }
    if (build) user = pctDecode(uri.slice(p, userEnd));
    p = at + 1;
  }
  const hostStart = p;
  p = scanHost(uri, p, end);
  const hostEnd = p;
  let port: number | null = null;
  if (p < end && uri.charCodeAt(p) === 58) {
    const portStart = p + 1;
    p = scanPort(uri, portStart, end);
    if (build) port = portValue(uri, portStart, p);
  }
  p = scanUriParams(uri, p, end, params);
  const headers: Record<string, string> | null = build ? {} : null;
  const hasHeaders = p < end && uri.charCodeAt(p) === 63;
  if (hasHeaders) {
    do {
      const nameStart = p + 1;
      const nameEnd = scanUri(uri, nameStart, end, C_HNV);
      if (nameEnd === nameStart || uri.charCodeAt(nameEnd) !== 61) throw bad(`invalid URI header in ${clip(uri)}`);
      const valueEnd = scanUri(uri, nameEnd + 1, end, C_HNV);
      if (headers !== null) {
        setParam(headers, pctDecode(uri.slice(nameStart, nameEnd)), pctDecode(uri.slice(nameEnd + 1, valueEnd)));
      }
      p = valueEnd;
    } while (p < end && uri.charCodeAt(p) === 38);
  }
  if (p !== end) throw bad(`invalid character in URI ${clip(uri)}`);
  if (params === null || headers === null) return hasHeaders;
  return { scheme, user, password, host: uri.slice(hostStart, hostEnd), port, params, headers };
}

/**
 * Parses a sip:, sips: or tel: URI. Throws SipParseError 416 for any other well-formed
 * scheme, 400 for a malformed URI.
 */
export function parseUri(uri: string): SipUri {
  return readUri(uri, true);
}

// ---------------------------------------------------------------------------------------
// Header values

/**
 * Checks a quoted-string at p (which holds the opening quote); returns the index after the
 * closing quote.
 */
function readQuoted(s: string, p: number, end: number): number {
  let q = p + 1;
  while (q < end) {
    const c = s.charCodeAt(q);
    if (c === 34) return q + 1;
    if (c === 92) {
      const next = s.charCodeAt(q + 1);
      // quoted-pair = "\" (%x00-09 / %x0B-0C / %x0E-7F)
      if (q + 1 >= end || next === LF || next === CR || next > 0x7f) throw bad("invalid escape in quoted string");
      q += 2;
    } else if ((c < 0x20 && c !== HTAB) || c === 0x7f) {
      throw bad("control character in quoted string");
    } else q++;
  }
  throw bad("unterminated quoted string");
}

/** The content of the quoted-string s[open, close) that readQuoted checked, its quoted-pairs unescaped. */
function unquote(s: string, open: number, close: number): string {
  const last = close - 1;
  let backslash = s.indexOf("\\", open + 1);
  if (backslash < 0 || backslash >= last) return s.slice(open + 1, last);
  let text = "";
  let from = open + 1;
  while (backslash >= 0 && backslash < last) {
    text += s.slice(from, backslash) + s[backslash + 1];
    from = backslash + 2;
    backslash = s.indexOf("\\", from);
  }
  return text + s.slice(from, last);
}

/**
 * Header parameters (";" name ["=" (token / host / quoted-string)], LWS allowed around ";"
 * and "=") from p to the end of s, into params (null: only checked). Names are lower-cased;
 * quoted values keep their quotes. A "tag" must have a value; with `via`, so must "branch"
 * and "received", and "rport" may only carry a port.
 */
function parseParams(s: string, p: number, end: number, params: Record<string, string | null> | null, via = false): void {
  for (;;) {
    p = skipWs(s, p, end);
    if (p >= end) return;
    if (s.charCodeAt(p) !== 59) throw bad(`unexpected ${clip(s[p]!)} in header parameters`);
    p = skipWs(s, p + 1, end);
    const nameStart = p;
    p = scanToken(s, p, end);
    const nameEnd = p;
    if (nameEnd === nameStart) throw bad("empty header parameter");
    let valueStart = -1;
    const eq = skipWs(s, p, end);
    if (eq < end && s.charCodeAt(eq) === 61) {
      valueStart = skipWs(s, eq + 1, end);
      if (valueStart < end && s.charCodeAt(valueStart) === 34) {
        p = readQuoted(s, valueStart, end);
      } else {
        p = valueStart;
        while (p < end && has(s.charCodeAt(p), C_GENVALUE)) p++;
        if (p === valueStart) throw bad(`empty value for parameter ${clip(s.slice(nameStart, nameEnd))}`);
      }
    } else if (nameEnd - nameStart === 3 && s.slice(nameStart, nameEnd).toLowerCase() === "tag") {
      throw bad("tag parameter without a value");
    }
    if (via) checkViaParam(s, nameStart, nameEnd, valueStart, p);
    if (params !== null) {
      setParam(params, s.slice(nameStart, nameEnd).toLowerCase(), valueStart < 0 ? null : s.slice(valueStart, p));
    }
  }
}

/** Checks the Via parameters with a defined form (RFC 3261 §20.42, RFC 3581). */
function checkViaParam(s: string, nameStart: number, nameEnd: number, valueStart: number, valueEnd: number): void {
  const length = nameEnd - nameStart;
  if (length !== 5 && length !== 6 && length !== 8) return;
  const name = s.slice(nameStart, nameEnd).toLowerCase();
  if (name === "rport") {
    if (valueStart >= 0 && scanPort(s, valueStart, valueEnd) !== valueEnd) throw bad(`invalid rport in ${clip(s)}`);
  } else if ((name === "branch" || name === "received") && valueStart < 0) {
    throw bad(`Via ${name} without a value in ${clip(s)}`);
  }
}

/** Reads one Via value; builds the result when `build`, else only checks it. */
function readVia(value: string, build: boolean): Via | null {
  const s = value;
  const end = s.length;
  let p = skipWs(s, 0, end);
  // sent-protocol: "SIP" SLASH "2.0" SLASH transport, LWS allowed around each slash.
  let q = scanToken(s, p, end);
  const protocol = s.slice(p, q);
  p = skipWs(s, q, end);
  if (s.charCodeAt(p) !== 47) throw bad(`invalid Via sent-protocol in ${clip(s)}`);
  p = skipWs(s, p + 1, end);
  q = scanToken(s, p, end);
  const version = s.slice(p, q);
  p = skipWs(s, q, end);
  if (s.charCodeAt(p) !== 47) throw bad(`invalid Via sent-protocol in ${clip(s)}`);
  p = skipWs(s, p + 1, end);
  q = scanToken(s, p, end);
  if (q === p) throw bad(`invalid Via sent-protocol in ${clip(s)}`);
  const transportStart = p;
  const transportEnd = q;
  p = skipWs(s, q, end);
  if (version !== "2.0" || (protocol !== "SIP" && protocol.toUpperCase() !== "SIP")) {
    throw bad(`unsupported Via protocol in ${clip(s)}`);
  }
  if (!isWs(s.charCodeAt(p - 1))) throw bad(`missing sent-by in Via ${clip(s)}`);
  const hostStart = p;
  const hostEnd = scanHost(s, p, end);
  p = hostEnd;
  let port: number | null = null;
  const colon = skipWs(s, p, end);
  if (colon < end && s.charCodeAt(colon) === 58) {
    const portStart = skipWs(s, colon + 1, end);
    p = scanPort(s, portStart, end);
    if (build) port = portValue(s, portStart, p);
  }
  if (!build) {
    parseParams(s, p, end, null, true);
    return null;
  }
  const params: Record<string, string | null> = {};
  parseParams(s, p, end, params, true);
  const rp = params.rport;
  return {
    transport: s.slice(transportStart, transportEnd).toUpperCase(),
    host: s.slice(hostStart, hostEnd),
    port,
    branch: params.branch ?? null,
    received: params.received ?? null,
    rport: rp === undefined ? null : rp === null ? "" : Number(rp),
    params,
  };
}

/** Parses one Via value (one element of the comma-separated list). */
export function parseVia(value: string): Via {
  return readVia(value, true)!;
}

/** Reads a name-addr or addr-spec; builds the result when `build`, else only checks it. */
function readNameAddr(s: string, build: boolean): NameAddr | null {
  const end = s.length;
  let p = skipWs(s, 0, end);
  let displayName: string | null = null;
  let angle = false;
  if (s.charCodeAt(p) === 34) {
    const open = p;
    p = readQuoted(s, p, end);
    if (build) displayName = unquote(s, open, p);
    p = skipWs(s, p, end);
    if (s.charCodeAt(p) !== 60) throw bad(`expected "<" after display name in ${clip(s)}`);
    angle = true;
  } else {
    let q = p;
    while (q < end) {
      const c = s.charCodeAt(q);
      if (has(c, C_TOKEN) || isWs(c) || c > 0x7f) q++;
      else break;
    }
    if (q < end && s.charCodeAt(q) === 60) {
      let dnEnd = q;
      while (dnEnd > p && isWs(s.charCodeAt(dnEnd - 1))) dnEnd--;
      if (build && dnEnd > p) displayName = s.slice(p, dnEnd);
      p = q;
      angle = true;
    }
  }
  let uriStart: number;
  let uriEnd: number;
  if (angle) {
    uriStart = p + 1;
    uriEnd = s.indexOf(">", uriStart);
    if (uriEnd < 0) throw bad(`missing ">" in ${clip(s)}`);
    if (!isAbsoluteUri(s, uriStart, uriEnd)) throw bad(`invalid URI in ${clip(s)}`);
    p = uriEnd + 1;
  } else {
    uriStart = p;
    let q = p;
    while (q < end) {
      const c = s.charCodeAt(q);
      if (c === 59 || isWs(c)) break;
      if (c === 63 || c === 44) {
        throw bad(
          s.indexOf("<", q) !== -1
            ? `a display name with characters other than token characters must be quoted: ${clip(s)}`
            : `a URI with "?" or "," must be enclosed in "<>": ${clip(s)}`,
        );
      }
      q++;
    }
    uriEnd = q;
    if (!isAbsoluteUri(s, uriStart, uriEnd)) throw bad(`invalid name-addr or addr-spec ${clip(s)}`);
    p = q;
  }
  if (!build) {
    parseParams(s, p, end, null);
    return null;
  }
  const params: Record<string, string | null> = {};
  parseParams(s, p, end, params);
  return { displayName, uri: s.slice(uriStart, uriEnd), tag: params.tag ?? null, params };
}

/**
 * Parses a name-addr (`"Display" <uri>;params`, `Display <uri>`) or addr-spec (`uri;params`)
 * value as in To, From, Contact, Route, Refer-To. An addr-spec URI may not contain "?" or ","
 * (RFC 3261 §20: such URIs must be enclosed in "<>"). The URI is checked as an absolute URI
 * of any scheme; parse it with parseUri for its parts. `params` holds every header parameter,
 * `tag` included; the display name is unquoted and unescaped.
 */
export function parseNameAddr(value: string): NameAddr {
  return readNameAddr(value, true)!;
}

const MAX_CSEQ = 4_294_967_295;

/** Parses a CSeq value ("1*DIGIT LWS Method"); the number must fit 32 bits unsigned. */
export function parseCSeq(value: string): CSeq {
  const s = value;
  const end = s.length;
  const p = skipWs(s, 0, end);
  let q = p;
  while (q < end && isDigit(s.charCodeAt(q))) q++;
  if (q === p) throw bad(`invalid CSeq ${clip(s)}`);
  const seq = Number(s.slice(p, q));
  if (seq > MAX_CSEQ) throw bad(`CSeq number out of range in ${clip(s)}`);
  const m = skipWs(s, q, end);
  if (m === q) throw bad(`invalid CSeq ${clip(s)}`);
  const mEnd = scanToken(s, m, end);
  if (mEnd === m || skipWs(s, mEnd, end) !== end) throw bad(`invalid CSeq method in ${clip(s)}`);
  return { seq, method: s.slice(m, mEnd) };
}

/** rfc1123-date as RFC 3261 §20.17 allows it (GMT only). Fixed shape: no backtracking. */
const DATE = /^(?:Mon|Tue|Wed|Thu|Fri|Sat|Sun), \d\d (?:Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec) \d{4} \d\d:\d\d:\d\d GMT$/;

// ---------------------------------------------------------------------------------------
// Message framing and the header section

const BLANK_LINE = Buffer.from("\r\n\r\n", "latin1");
const EMPTY = new Uint8Array(0);
const utf8 = new TextDecoder("utf-8", { ignoreBOM: true });

const asBuffer = (bytes: Uint8Array): Buffer =>
  Buffer.isBuffer(bytes) ? bytes : Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);

/** Index of the first CRLFCRLF at or after `from`, or -1. */
export function findBlankLine(bytes: Uint8Array, from: number): number {
  return asBuffer(bytes).indexOf(BLANK_LINE, from);
}

/**
 * A copy of bytes[start, start + length) as a plain Uint8Array. The memory comes from
 * Buffer.allocUnsafe (pooled, not zero-filled: every byte is overwritten here), several
 * times faster than `new Uint8Array(length)` for bodies of a few hundred bytes.
 */
export function copyBytes(bytes: Uint8Array, start: number, length: number): Uint8Array {
  if (length === 0) return EMPTY;
  const out = Buffer.allocUnsafe(length);
  asBuffer(bytes).copy(out, 0, start, start + length);
  return new Uint8Array(out.buffer, out.byteOffset, length);
}

/** Trims SP/HTAB from both ends of s[start, end). */
function trimmed(s: string, start: number, end: number): string {
  while (start < end && isWs(s.charCodeAt(start))) start++;
  while (end > start && isWs(s.charCodeAt(end - 1))) end--;
  return s.slice(start, end);
}

/** The index of the CR ending the line that starts at pos; throws on a bare CR or LF (lines end in CRLF). */
function lineEndAt(s: string, pos: number): number {
  const cr = s.indexOf("\r", pos);
  if (cr < 0 || s.charCodeAt(cr + 1) !== LF || s.indexOf("\n", pos) !== cr + 1) {
    throw bad("bare CR or LF in header section (lines must end in CRLF)");
  }
  return cr;
}

/** Splits a list header value on commas outside quoted strings and "<...>". */
function pushList(headers: SipHeaders, name: string, value: string): void {
  const end = value.length;
  let from = 0;
  let quoted = false;
  let angle = false;
  const before = headers.length;
  for (let i = 0; i < end; i++) {
    const c = value.charCodeAt(i);
    if (quoted) {
      if (c === 92) i++;
      else if (c === 34) quoted = false;
    } else if (c === 34) quoted = true;
    else if (c === 60) angle = true;
    else if (c === 62) angle = false;
    else if (c === 44 && !angle) {
      const part = trimmed(value, from, i);
      if (part !== "") headers.push([name, part]);
      from = i + 1;
    }
  }
  const last = trimmed(value, from, end);
  if (last !== "") headers.push([name, last]);
  if (headers.length === before) headers.push([name, value]);
}

/** Parses a non-negative decimal Content-Length. */
function contentLengthOf(value: string): number {
  if (value.length === 0 || value.length > 15) throw bad(`invalid Content-Length ${clip(value)}`);
  for (let i = 0; i < value.length; i++) {
    if (!isDigit(value.charCodeAt(i))) throw bad(`invalid Content-Length ${clip(value)}`);
  }
  return Number(value);
}

/**
 * Reads the start line and header section in bytes[start, end) (end just past the CRLF of
 * the last header line, or the end of a datagram without a blank line): unfolds continuation
 * lines, canonicalises names, splits list headers, reads Content-Length. Throws
 * SipParseError when the section cannot be read as SIP at all.
 */
export function parseMessageHead(bytes: Uint8Array, start: number, end: number, limits: ParseLimits): MessageHead {
  let text = utf8.decode(bytes.subarray(start, end));
  if (!text.endsWith("\r\n")) text += "\r\n";
  const n = text.length;

  // Start line.
  const eol = lineEndAt(text, 0);
  if (eol > limits.maxHeaderLineBytes) throw bad("start line too long");
  let kind: "request" | "response";
  let method = "";
  let uri = "";
  let version = "SIP/2.0";
  let status = 0;
  let reason = "";
  if (eol >= 4 && text.slice(0, 4).toUpperCase() === "SIP/") {
    kind = "response";
    const sp = text.indexOf(" ");
    if (sp < 0 || sp > eol || text.slice(0, sp).toUpperCase() !== "SIP/2.0") throw bad("invalid status line");
    const codeEnd = sp + 4;
    if (
      codeEnd > eol ||
      !isDigit(text.charCodeAt(sp + 1)) ||
      !isDigit(text.charCodeAt(sp + 2)) ||
      !isDigit(text.charCodeAt(sp + 3)) ||
      (codeEnd < eol && text.charCodeAt(codeEnd) !== SP)
    ) {
      throw bad("invalid status code");
    }
    status = Number(text.slice(sp + 1, codeEnd));
    if (status < 100 || status > 699) throw bad("invalid status code");
    reason = codeEnd < eol ? text.slice(codeEnd + 1, eol) : "";
  } else {
    kind = "request";
    const sp1 = text.indexOf(" ");
    const sp2 = text.lastIndexOf(" ", eol - 1);
    if (sp1 <= 0 || sp1 > eol || sp2 === sp1) throw bad("invalid request line");
    method = text.slice(0, sp1);
    uri = text.slice(sp1 + 1, sp2);
    version = text.slice(sp2 + 1, eol);
  }

  // Header fields.
  const headers: SipHeaders = [];
  let contentLength: number | null = null;
  let pos = eol + 2;
  while (pos < n) {
    const fieldStart = pos;
    let lineEnd = lineEndAt(text, pos);
    if (isWs(text.charCodeAt(pos))) throw bad("continuation line without a header field");
    const nameEnd = scanToken(text, pos, lineEnd);
    const colon = skipWs(text, nameEnd, lineEnd);
    if (nameEnd === pos || colon === lineEnd || text.charCodeAt(colon) !== 58) {
      throw bad(`invalid header line ${clip(text.slice(pos, lineEnd))}`);
    }
    const name = canonicalNameAt(text, pos, nameEnd) ?? text.slice(pos, nameEnd);
    let value = trimmed(text, colon + 1, lineEnd);
    pos = lineEnd + 2;
    // Continuation lines (LWS folding): each CRLF + leading whitespace becomes one SP.
    while (pos < n && isWs(text.charCodeAt(pos))) {
      lineEnd = lineEndAt(text, pos);
      if (lineEnd - fieldStart > limits.maxHeaderLineBytes) break;
      const more = trimmed(text, pos, lineEnd);
      if (more !== "") value = value === "" ? more : `${value} ${more}`;
      pos = lineEnd + 2;
    }
    if (lineEnd - fieldStart > limits.maxHeaderLineBytes) {
      throw bad(`header line longer than ${limits.maxHeaderLineBytes} bytes`);
    }
    if (name === "Content-Length") {
      const length = contentLengthOf(value);
      if (contentLength !== null && contentLength !== length) throw bad("conflicting Content-Length values");
      contentLength = length;
      value = String(length);
    }
    if (value.indexOf(",") !== -1 && LIST_HEADERS.has(name)) pushList(headers, name, value);
    else headers.push([name, value]);
    if (headers.length > limits.maxHeaders) throw bad(`more than ${limits.maxHeaders} header fields`);
  }
  return { kind, method, uri, version, status, reason, headers, contentLength };
}

/** Checks a Request-URI: sip/sips/tel read in full (no URI headers), other schemes as absolute URIs. */
function requestUriProblem(uri: string): string | null {
  if (uri.length === 0 || uri.indexOf(" ") !== -1) return "Request-URI contains whitespace or is empty";
  const colon = schemeEnd(uri, 0, uri.length);
  if (colon < 0) return `invalid Request-URI ${clip(uri)}`;
  const scheme = uri.slice(0, colon).toLowerCase();
  if (scheme === "sip" || scheme === "sips" || scheme === "tel") {
    let hasHeaders: boolean;
    try {
      hasHeaders = readUri(uri, false);
    } catch (error) {
      return `invalid Request-URI: ${(error as Error).message}`;
    }
    return hasHeaders ? "headers are not allowed in a Request-URI" : null;
  }
  return isAbsoluteUri(uri, 0, uri.length) ? null : `invalid Request-URI ${clip(uri)}`;
}

const VERSION_SHAPE = /^SIP\/\d{1,9}\.\d{1,9}$/i;

/**
 * Builds the message from a head and its body and checks what every message must satisfy
 * (RFC 3261 §8.1.1, §8.2, §20); throws SipMessageError carrying the partial message.
 * `bodyProblem` reports a body that could not be read (Content-Length beyond the datagram).
 */
export function completeMessage(head: MessageHead, body: Uint8Array, bodyProblem: string | null = null): SipMessage {
  const headers = head.headers;
  const msg: SipMessage =
    head.kind === "request"
      ? { kind: "request", method: head.method, uri: head.uri, version: "SIP/2.0", headers, body }
      : { kind: "response", status: head.status, reason: head.reason, version: "SIP/2.0", headers, body };
  let context = "";
  try {
    if (head.kind === "request") {
      if (head.version.toUpperCase() !== "SIP/2.0") {
        if (VERSION_SHAPE.test(head.version)) throw bad(`unsupported SIP version ${clip(head.version)}`, 505);
        throw bad(`invalid SIP version ${clip(head.version)}`);
      }
      if (!isToken(head.method)) throw bad(`invalid method ${clip(head.method)}`);
      const problem = requestUriProblem(head.uri);
      if (problem !== null) throw bad(problem);
    }
    let to: string | null = null;
    let from: string | null = null;
    let cseq: string | null = null;
    let callId: string | null = null;
    let maxForwards: string | null = null;
    let vias = 0;
    const duplicate = (name: string): never => {
      throw bad(`more than one ${name} header`);
    };
    for (let i = 0; i < headers.length; i++) {
      const entry = headers[i]!;
      const value = entry[1];
      switch (entry[0]) {
        case "To":
          if (to !== null) duplicate("To");
          context = "To: ";
          readNameAddr((to = value), false);
          context = "";
          break;
        case "From":
          if (from !== null) duplicate("From");
          context = "From: ";
          readNameAddr((from = value), false);
          context = "";
          break;
        case "CSeq":
          if (cseq !== null) duplicate("CSeq");
          cseq = value;
          break;
        case "Call-ID":
          if (callId !== null) duplicate("Call-ID");
          callId = value;
          break;
        case "Max-Forwards":
          if (maxForwards !== null) duplicate("Max-Forwards");
          maxForwards = value;
          break;
        case "Via":
          vias++;
          context = "Via: ";
          readVia(value, false);
          context = "";
          break;
        case "Contact":
          context = "Contact: ";
          if (value !== "*") readNameAddr(value, false);
          context = "";
          break;
        case "Date":
          if (!DATE.test(value)) throw bad(`invalid Date ${clip(value)} (RFC 1123 form in GMT required)`);
          break;
      }
    }
    const missing: string[] = [];
    if (to === null) missing.push("To");
    if (from === null) missing.push("From");
    if (cseq === null) missing.push("CSeq");
    if (callId === null) missing.push("Call-ID");
    if (maxForwards === null && head.kind === "request") missing.push("Max-Forwards");
    if (vias === 0) missing.push("Via");
    if (missing.length > 0) throw bad(`missing mandatory header${missing.length > 1 ? "s" : ""}: ${missing.join(", ")}`);

    context = "CSeq: ";
    const parsedCSeq = parseCSeq(cseq!);
    context = "";
    if (head.kind === "request" && parsedCSeq.method !== head.method) {
      throw bad(`CSeq method ${clip(parsedCSeq.method)} does not match request method ${clip(head.method)}`);
    }
    if (callId!.length === 0 || /[\x00-\x20\x7f]/.test(callId!)) throw bad("invalid Call-ID");
    if (maxForwards !== null) {
      const mf = maxForwards;
      let digits = mf.length > 0 && mf.length <= 10;
      for (let i = 0; digits && i < mf.length; i++) digits = isDigit(mf.charCodeAt(i));
      if (!digits || Number(mf) > 255) throw bad(`invalid Max-Forwards ${clip(mf)}`);
    }
    if (bodyProblem !== null) throw bad(bodyProblem);
  } catch (error) {
    if (error instanceof SipParseError) throw new SipMessageError(context + error.message, error.status, msg);
    throw error;
  }
  return msg;
}

/**
 * Parses one UDP datagram as a SIP message. The body is Content-Length bytes after the blank
 * line (the rest of the datagram without Content-Length; extra octets are dropped, RFC 3261
 * §18.3). Throws SipParseError (513 too large, else 400) when the datagram cannot be read as SIP, and
 * SipMessageError (a SipParseError with the partial message) when it can be read but is
 * invalid; `status` is what to answer a request with.
 */
export function parseMessage(bytes: Uint8Array, limits: ParseLimits = DEFAULT_LIMITS): SipMessage {
  const total = bytes.length;
  if (total > limits.maxMessageBytes) {
    throw bad(`message of ${total} bytes exceeds the ${limits.maxMessageBytes}-byte limit`, 513);
  }
  let start = 0;
  while (start < total && (bytes[start] === CR || bytes[start] === LF)) start++;
  if (start === total) throw bad("empty message");
  const blank = findBlankLine(bytes, start);
  // A datagram without the blank line is read as headers only (liberal: RFC 3261 §7.5 wants it).
  const headEnd = blank < 0 ? total : blank + 2;
  const bodyStart = blank < 0 ? total : blank + 4;
  const head = parseMessageHead(bytes, start, headEnd, limits);
  const available = total - bodyStart;
  const length = head.contentLength;
  if (length === null) return completeMessage(head, copyBytes(bytes, bodyStart, available));
  if (length > available) {
    return completeMessage(head, EMPTY, `Content-Length ${length} exceeds the ${available} body bytes received`);
  }
  return completeMessage(head, copyBytes(bytes, bodyStart, length));
}
