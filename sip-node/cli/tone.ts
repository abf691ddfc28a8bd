// The listener's side of an answered arrival's media: the tone it plays (1 kHz at -10 dBFS, as
// µ-law for RtpPlayer, which speaks the law the caller chose) and its SDP answer (RFC 3264): the
// caller's preferred G.711 law alone, with telephone-event when offered, its direction mirrored.
import { randomInt } from "node:crypto";
import { encodeUlaw } from "../media/g711.ts";
import type { Answer } from "../origination/sdp-offer.ts";

const SAMPLE_RATE = 8000;
export const TONE_HZ = 1000;
export const TONE_DBFS = -10;

/** A sine of `seconds` at `hz` and `dbfs` (peak, relative to 16-bit full scale), µ-law. */
export function toneUlaw(seconds: number, hz = TONE_HZ, dbfs = TONE_DBFS): Uint8Array {
  const amplitude = 32767 * 10 ** (dbfs / 20);
  const samples = Math.round(seconds * SAMPLE_RATE);
  const out = new Uint8Array(samples);
  for (let n = 0; n < samples; n++) out[n] = encodeUlaw(Math.round(amplitude * Math.sin((2 * Math.PI * hz * n) / SAMPLE_RATE)));
  return out;
}

const MIRRORED = { sendrecv: "sendrecv", sendonly: "recvonly", recvonly: "sendonly", inactive: "inactive" } as const;

/** Our answer to `offer` (read with readAnswer: the law chosen and its payload type) at address:port. */
export function sdpAnswer(address: string, port: number, offer: Answer): Uint8Array {
  const family = address.includes(":") ? "IP6" : "IP4";
  const session = randomInt(2 ** 31);
  const events = offer.media.telephoneEventPt;
  const lines = [
    "v=0",
    `o=call-shield ${session} ${session} IN ${family} ${address}`,
    "s=call-shield",
    `c=IN ${family} ${address}`,
    "t=0 0",
    `m=audio ${port} RTP/AVP ${offer.payloadType}${events === null ? "" : ` ${events}`}`,
    `a=rtpmap:${offer.payloadType} ${offer.law}/8000`,
    ...(events === null ? [] : [`a=rtpmap:${events} telephone-event/8000`, `a=fmtp:${events} 0-16`]),
    "a=ptime:20",
    `a=${MIRRORED[offer.media.direction]}`,
  ];
  return new TextEncoder().encode(`${lines.join("\r\n")}\r\n`);
}
