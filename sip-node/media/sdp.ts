// The audio stream of an SDP body (RFC 4566, RFC 3264): reading where a party wants audio and
// in which codecs, and rewriting a body so the audio goes through our relay instead.

export type SdpDirection = "sendrecv" | "sendonly" | "recvonly" | "inactive";
export type PayloadFormat = { encoding: string; clockRate: number };
export type SdpMedia = {
  address: string | null;
  /** 0 when the stream is rejected or disabled. */
  port: number;
  payloadTypes: Map<number, PayloadFormat>;
  telephoneEventPt: number | null;
  direction: SdpDirection;
};

/** RFC 3551 static payload types that may be used without an rtpmap. */
const STATIC_PAYLOAD_TYPES: ReadonlyMap<number, PayloadFormat> = new Map([
  [0, { encoding: "PCMU", clockRate: 8000 }],
  [3, { encoding: "GSM", clockRate: 8000 }],
  [4, { encoding: "G723", clockRate: 8000 }],
  [8, { encoding: "PCMA", clockRate: 8000 }],
  [9, { encoding: "G722", clockRate: 8000 }],
  [13, { encoding: "CN", clockRate: 8000 }],
  [18, { encoding: "G729", clockRate: 8000 }],
]);

const TELEPHONE_EVENT = "telephone-event";
/** Encodings that travel beside the voice but are not its codec. */
const NOT_CODECS = new Set([TELEPHONE_EVENT, "CN"]);
const DIRECTIONS: readonly string[] = ["sendrecv", "sendonly", "recvonly", "inactive"];

const CONNECTION_LINE = /^c=IN[ \t]+IP[46][ \t]+([^ \t/]+)/;
const RTPMAP_LINE = /^a=rtpmap:(\d+)[ \t]+([^/ \t]+)\/(\d+)/;
const RTCP_LINE = /^a=rtcp:(\d+)([ \t]+IN[ \t]+IP[46][ \t]+[^ \t]+)?/;

export class SdpError extends Error {}

/** No SDP line we read is longer, and no body has more lines; a body beyond either is refused. */
export const MAX_SDP_LINE = 1024;
export const MAX_SDP_LINES = 1024;

type Line = { text: string; end: string };

/** A control character other than a tab, CR and LF: no SDP we read has one (nor a bare CR). */
const CONTROL = /[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]/;

/**
 * The lines of a body with each one's own line ending ("" for a last line without one), or null
 * when the body is not SDP we read: a bare CR, a control character other than a tab, a line
 * longer than MAX_SDP_LINE or more than MAX_SDP_LINES lines. A character class and a split on
 * literals: a hostile body costs its length.
 */
function splitLines(sdp: string): readonly Line[] | null {
  // A call reads each body three times in a row (parseSdpAudio, firstCodec, rewriteSdp): cut once.
  if (lastCut?.sdp === sdp) return lastCut.lines;
  const lines = cutLines(sdp);
  lastCut = { sdp, lines };
  return lines;
}

let lastCut: { sdp: string; lines: readonly Line[] | null } | null = null;

function cutLines(sdp: string): readonly Line[] | null {
  if (CONTROL.test(sdp)) return null;
  // At most one part past the limit is cut: a body of 64 K empty lines costs no more than a real one.
  const limit = 2 * MAX_SDP_LINES + 2;
  const parts = sdp.split(/(\r\n|\n)/, limit);
  if (parts.length >= limit) return null;
  const lines: Line[] = [];
  for (let i = 0; i < parts.length; i += 2) {
    const text = parts[i]!;
    if (text.length > MAX_SDP_LINE || text.includes("\r")) return null;
    lines.push({ text, end: parts[i + 1] ?? "" });
  }
  if (lines.length > 0 && lines.at(-1)!.text === "" && lines.at(-1)!.end === "") lines.pop();
  return lines;
}

const isSpace = (c: number) => c === 0x20 || c === 0x09;

/** The runs of non-blank characters of a line, as [start, end) offsets. */
function fields(text: string): Array<[number, number]> {
  const out: Array<[number, number]> = [];
  let i = 0;
  while (i < text.length) {
    while (i < text.length && isSpace(text.charCodeAt(i))) i++;
    if (i >= text.length) break;
    const start = i;
    while (i < text.length && !isSpace(text.charCodeAt(i))) i++;
    out.push([start, i]);
  }
  return out;
}

/** An m= line: media, port, the "/count" if any, and everything from the blank before the protocol on. */
type MediaLine = { media: string; port: string; count: string; rest: string; formats: string[] };

function parseMediaLine(text: string): MediaLine | null {
  if (!text.startsWith("m=")) return null;
  const body = text.slice(2);
  const tokens = body.split(BLANKS);
  if (tokens.length < 3 || tokens[0] === "" || tokens[2] === "") return null;
  const [media, portField] = [tokens[0]!, tokens[1]!];
  const slash = portField.indexOf("/");
  const port = slash < 0 ? portField : portField.slice(0, slash);
  const count = slash < 0 ? "" : portField.slice(slash);
  if (!isDigits(port) || (count !== "" && !isDigits(count.slice(1)))) return null;
  const formats = tokens.slice(3).filter((f) => f !== "");
  return { media, port, count, rest: body.slice(body.indexOf(portField, media.length) + portField.length), formats };
}

/** Runs of blanks between SDP fields (a single character class: linear). */
const BLANKS = /[ \t]+/;

function isDigits(text: string): boolean {
  if (text.length === 0) return false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c < 0x30 || c > 0x39) return false;
  }
  return true;
}

/** An o= line with its network type, address type and address replaced, or null when it is not one. */
function rewriteOrigin(text: string, family: string, address: string): string | null {
  if (!text.startsWith("o=")) return null;
  const f = fields(text);
  if (f.length < 6 || f[0]![0] !== 0 || f[0]![1] === 2) return null;
  const [nettype, addrtype] = [text.slice(f[3]![0], f[3]![1]), text.slice(f[4]![0], f[4]![1])];
  if (nettype !== "IN" || (addrtype !== "IP4" && addrtype !== "IP6")) return null;
  return `${text.slice(0, f[3]![0])}IN ${family} ${address}${text.slice(f[5]![1])}`;
}

/** The first m=audio stream, or null when there is none. */
export function parseSdpAudio(sdp: string): SdpMedia | null {
  let sessionAddress: string | null = null;
  let sessionDirection: SdpDirection | null = null;
  let audio: { port: number; formats: number[]; address: string | null; direction: SdpDirection | null } | null = null;
  const rtpmaps = new Map<number, PayloadFormat>();
  let inSession = true;
  const lines = splitLines(sdp);
  if (!lines) return null;
  for (const { text: raw } of lines) {
    const line = raw.trim();
    if (line.startsWith("m=")) {
      if (audio) break;
      inSession = false;
      const media = parseMediaLine(line);
      if (media && media.media === "audio") {
        const formats = media.formats.filter(isDigits).map(Number);
        audio = { port: Number(media.port), formats, address: null, direction: null };
      }
      continue;
    }
    if (!inSession && !audio) continue; // a stream before the audio one
    const address = CONNECTION_LINE.exec(line)?.[1] ?? null;
    const direction = DIRECTIONS.includes(line.slice(2)) && line.startsWith("a=") ? (line.slice(2) as SdpDirection) : null;
    if (inSession) {
      sessionAddress = address ?? sessionAddress;
      sessionDirection = direction ?? sessionDirection;
    } else if (audio) {
      audio.address = address ?? audio.address;
      audio.direction = direction ?? audio.direction;
      const rtpmap = RTPMAP_LINE.exec(line);
      if (rtpmap) rtpmaps.set(Number(rtpmap[1]), { encoding: encodingName(rtpmap[2]!), clockRate: Number(rtpmap[3]) });
    }
  }
  if (!audio) return null;
  const payloadTypes = new Map<number, PayloadFormat>();
  for (const pt of audio.formats) {
    const format = rtpmaps.get(pt) ?? STATIC_PAYLOAD_TYPES.get(pt);
    if (format && !payloadTypes.has(pt)) payloadTypes.set(pt, format);
  }
  return {
    address: audio.address ?? sessionAddress,
    port: audio.port,
    payloadTypes,
    telephoneEventPt: telephoneEventPayloadType(payloadTypes),
    direction: audio.direction ?? sessionDirection ?? "sendrecv",
  };
}

/** Codec names upper-cased ("pcma" is PCMA), except telephone-event, which is lower case by convention. */
function encodingName(name: string): string {
  return name.toLowerCase() === TELEPHONE_EVENT ? TELEPHONE_EVENT : name.toUpperCase();
}

/** The telephone-event payload type, preferring the 8 kHz one G.711 calls use. */
function telephoneEventPayloadType(payloadTypes: Map<number, PayloadFormat>): number | null {
  const events = [...payloadTypes].filter(([, f]) => f.encoding === TELEPHONE_EVENT);
  return (events.find(([, f]) => f.clockRate === 8000) ?? events[0])?.[0] ?? null;
}

/**
 * The voice codec the offerer prefers: the encoding of the first payload type on sdp's m=audio
 * line that is not telephone-event or comfort noise; null if that payload type is unknown.
 */
export function firstCodec(media: SdpMedia, sdp: string): string | null {
  const mediaLine = splitLines(sdp)?.find((l) => l.text.startsWith("m=audio"));
  const order = mediaLine ? (parseMediaLine(mediaLine.text.trim())?.formats ?? []).map(Number) : [];
  for (const pt of order.length > 0 ? order : [...media.payloadTypes.keys()]) {
    const format = media.payloadTypes.get(pt);
    if (!format) return null;
    if (!NOT_CODECS.has(format.encoding)) return format.encoding;
  }
  return null;
}

/**
 * The body with its audio anchored at address:port: every c= line, the o= address, the first
 * m=audio port (unless it is 0: a rejected stream stays rejected) and its a=rtcp are ours.
 * Every other m= line gets port 0, disabling the stream, because only the first audio stream is
 * relayed and a stream pointing at us would go nowhere; a=rtcp lines of those streams are
 * dropped. Every other line, and every line ending, is kept byte for byte.
 */
export function rewriteSdp(sdp: string, address: string, port: number): string {
  const family = address.includes(":") ? "IP6" : "IP4";
  let section: "session" | "anchored" | "disabled" = "session";
  let anchored = false;
  const out: string[] = [];
  const lines = splitLines(sdp);
  if (!lines) throw new SdpError("not an SDP body this node reads (control character, bare CR or a line over 1 KB)");
  for (const { text, end } of lines) {
    let line: string | null = text;
    const media = parseMediaLine(text);
    const origin = section === "session" ? rewriteOrigin(text, family, address) : null;
    if (media) {
      const anchorThis = !anchored && media.media === "audio" && media.port !== "0";
      anchored ||= media.media === "audio";
      section = anchorThis ? "anchored" : "disabled";
      line = `m=${media.media} ${anchorThis ? port : 0}${media.count}${media.rest}`;
    } else if (CONNECTION_LINE.test(text)) {
      line = `c=IN ${family} ${address}`;
    } else if (origin !== null) {
      line = origin;
    } else if (RTCP_LINE.test(text)) {
      const withAddress = RTCP_LINE.exec(text)![2] !== undefined;
      line = section === "anchored" ? `a=rtcp:${port + 1}${withAddress ? ` IN ${family} ${address}` : ""}` : null;
    }
    if (line !== null) out.push(line + end);
  }
  return out.join("");
}
