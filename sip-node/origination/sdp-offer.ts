// The SDP of a test call: our offer (G.711 µ-law and A-law, telephone-event, 20 ms) at the
// relay's port facing the callee, and which law the callee's answer chose.
import { randomInt } from "node:crypto";
import { firstCodec, parseSdpAudio } from "../media/sdp.ts";
import type { Law } from "./player.ts";

const TELEPHONE_EVENT_PT = 101;

/** Our offer; with `only`, that law alone (a bridge passes packets unchanged, so both ends must speak it). */
export function sdpOffer(address: string, port: number, only?: { law: Law; payloadType: number }): Uint8Array {
  const family = address.includes(":") ? "IP6" : "IP4";
  const session = randomInt(2 ** 31);
  const lines = [
    "v=0",
    `o=call-shield ${session} ${session} IN ${family} ${address}`,
    "s=call-shield test call",
    `c=IN ${family} ${address}`,
    "t=0 0",
    `m=audio ${port} RTP/AVP ${only ? only.payloadType : "0 8"} ${TELEPHONE_EVENT_PT}`,
    ...(only ? [`a=rtpmap:${only.payloadType} ${only.law}/8000`] : ["a=rtpmap:0 PCMU/8000", "a=rtpmap:8 PCMA/8000"]),
    `a=rtpmap:${TELEPHONE_EVENT_PT} telephone-event/8000`,
    `a=fmtp:${TELEPHONE_EVENT_PT} 0-16`,
    "a=ptime:20",
    "a=sendrecv",
  ];
  return new TextEncoder().encode(`${lines.join("\r\n")}\r\n`);
}

export type Answer = { media: NonNullable<ReturnType<typeof parseSdpAudio>>; codec: string | null; law: Law; payloadType: number };

/** The callee's answer: where its audio goes and the law we speak (its first G.711 format); null when it chose neither law. */
export function readAnswer(body: Uint8Array): Answer | null {
  if (body.length === 0) return null;
  const sdp = new TextDecoder().decode(body);
  const media = parseSdpAudio(sdp);
  if (!media || media.port === 0) return null;
  const codec = firstCodec(media, sdp);
  const g711 = [...media.payloadTypes].filter(([, f]) => f.encoding.toUpperCase() === "PCMU" || f.encoding.toUpperCase() === "PCMA");
  const chosen = g711.find(([, f]) => f.encoding.toUpperCase() === codec?.toUpperCase()) ?? g711[0];
  if (!chosen) return null;
  return { media, codec, law: chosen[1].encoding.toUpperCase() as Law, payloadType: chosen[0] };
}
