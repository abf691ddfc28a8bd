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

const MEDIA_LINE = /^m=(\S+)\s+(\d+)(\/\d+)?(\s+\S+)(.*)$/;
const CONNECTION_LINE = /^c=IN\s+IP[46]\s+([^\s/]+)/;
const ORIGIN_LINE = /^(o=\S+\s+\S+\s+\S+\s+)IN\s+IP[46]\s+\S+(.*)$/;
const RTPMAP_LINE = /^a=rtpmap:(\d+)\s+([^/\s]+)\/(\d+)/;
const RTCP_LINE = /^a=rtcp:(\d+)(\s+IN\s+IP[46]\s+\S+)?/;

type Line = { text: string; end: string };

/** The lines of a body with each one's own line ending ("" for a last line without one). */
function splitLines(sdp: string): Line[] {
  const parts = sdp.split(/(\r\n|\n)/);
  const lines: Line[] = [];
  for (let i = 0; i < parts.length; i += 2) lines.push({ text: parts[i]!, end: parts[i + 1] ?? "" });
  if (lines.length > 0 && lines.at(-1)!.text === "" && lines.at(-1)!.end === "") lines.pop();
  return lines;
}

/** The first m=audio stream, or null when there is none. */
export function parseSdpAudio(sdp: string): SdpMedia | null {
  let sessionAddress: string | null = null;
  let sessionDirection: SdpDirection | null = null;
  let audio: { port: number; formats: number[]; address: string | null; direction: SdpDirection | null } | null = null;
  const rtpmaps = new Map<number, PayloadFormat>();
  let inSession = true;
  for (const { text: raw } of splitLines(sdp)) {
    const line = raw.trim();
    if (line.startsWith("m=")) {
      if (audio) break;
      inSession = false;
      const media = MEDIA_LINE.exec(line);
      if (media && media[1] === "audio") {
        const formats = media[5]!
          .trim()
          .split(/\s+/)
          .filter((f) => /^\d+$/.test(f))
          .map(Number);
        audio = { port: Number(media[2]), formats, address: null, direction: null };
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
  const mediaLine = splitLines(sdp).find((l) => l.text.startsWith("m=audio"));
  const order = mediaLine ? (MEDIA_LINE.exec(mediaLine.text.trim())?.[5] ?? "").trim().split(/\s+/).map(Number) : [];
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
  for (const { text, end } of splitLines(sdp)) {
    let line: string | null = text;
    const media = MEDIA_LINE.exec(text);
    if (media) {
      const anchorThis = !anchored && media[1] === "audio" && media[2] !== "0";
      anchored ||= media[1] === "audio";
      section = anchorThis ? "anchored" : "disabled";
      line = `m=${media[1]} ${anchorThis ? port : 0}${media[3] ?? ""}${media[4]}${media[5]}`;
    } else if (CONNECTION_LINE.test(text)) {
      line = `c=IN ${family} ${address}`;
    } else if (section === "session" && ORIGIN_LINE.test(text)) {
      line = text.replace(ORIGIN_LINE, `$1IN ${family} ${address}$2`);
    } else if (RTCP_LINE.test(text)) {
      const withAddress = RTCP_LINE.exec(text)![2] !== undefined;
      line = section === "anchored" ? `a=rtcp:${port + 1}${withAddress ? ` IN ${family} ${address}` : ""}` : null;
    }
    if (line !== null) out.push(line + end);
  }
  return out.join("");
}
