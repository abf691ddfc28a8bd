// A call's media as the customer gets it: the recording (whole or a byte range, with the
// account's credential or a short-lived recording token) and the captures (one pcap as it is,
// several in a zip). The files live in R2 under the keys the SIP node's uploads set on the call.
// Verbs answer a MediaFile; the front door decides how to send it.
import type { calls } from "../../../schema/calls.ts";
import { MEDIA_CONTENT_TYPES } from "../../../schema/node-api.ts";
import type { ByteRange } from "../../lib/http-range.ts";
import { type MediaFileKind, signMediaToken } from "../../lib/tokens.ts";
import { zipStream } from "../../lib/zip.ts";
import { callOfAccount, getCallSipLog, hasSipLadder } from "./records.ts";
import type { Services } from "../context.ts";
import { NotFound, RangeNotSatisfiable } from "../errors.ts";
import type { Principal } from "../identity/principal.ts";

const PCAP = MEDIA_CONTENT_TYPES["caller.pcap"];
const WAV = MEDIA_CONTENT_TYPES["recording.wav"];

export type MediaFile = {
  body: ReadableStream;
  contentType: string;
  filename: string;
  /** inline: played in place; attachment: saved. */
  disposition: "inline" | "attachment";
  /** Known for a stored object, unknown for a zip made on the fly. */
  size: number | null;
  etag: string | null;
  /** Set when only part of the file is answered. */
  part: (ByteRange & { of: number }) | null;
};

type CallRow = typeof calls.$inferSelect;

function recordingKeyOf(call: CallRow) {
  if (!call.recordingAvailable || !call.recordingWavPath) throw new NotFound("No recording for this call");
  return { call, key: call.recordingWavPath };
}

async function recordingKey(s: Services, principal: Principal, callId: string) {
  return recordingKeyOf(await callOfAccount(s, principal, callId));
}

/** The address of one of the call's files with a media token as `t`: good for that file of that call only, `ttl` seconds. */
async function fileLink(s: Services, principal: Principal, callId: string, file: MediaFileKind, ttl: number): Promise<string> {
  const token = await signMediaToken(
    { sub: principal.user.id, cid: principal.customer.id, call: callId, imp: principal.impersonatedBy },
    s.config.JWT_SECRET,
    ttl,
    file,
  );
  const url = new URL(`/api/calls/${callId}/${file}`, s.origin);
  url.searchParams.set("t", token);
  return url.toString();
}

/** A link a player can open without an Authorization header, good for this call's recording only. */
export async function recordingToken(s: Services, principal: Principal, callId: string) {
  const { call } = await recordingKey(s, principal, callId);
  const ttl = s.config.RECORDING_TOKEN_TTL_SEC;
  return { url: await fileLink(s, principal, call.id, "recording", ttl), expires_in: ttl };
}

/**
 * Short-lived links to the call's recording, packet capture and SIP ladder that open without an
 * Authorization header (what an agent hands a person: issue 31), each a media token for that file
 * of that call, good RECORDING_TOKEN_TTL_SEC; null where the call has no such file.
 */
export async function mediaLinks(s: Services, principal: Principal, callId: string) {
  const call = await callOfAccount(s, principal, callId);
  const ttl = s.config.RECORDING_TOKEN_TTL_SEC;
  const [captured, ladder] = await Promise.all([
    Promise.all((call.recordingPcapPaths ?? []).map((key) => s.media.head(key))),
    hasSipLadder(s, call),
  ]);
  const link = (file: MediaFileKind, present: boolean) => (present ? fileLink(s, principal, call.id, file, ttl) : null);
  const [recording_url, pcap_url, sip_ladder_url] = await Promise.all([
    link("recording", Boolean(call.recordingAvailable && call.recordingWavPath)),
    link(
      "pcap",
      captured.some((head) => head !== null),
    ),
    link("sip-ladder", ladder),
  ]);
  return { recording_url, pcap_url, sip_ladder_url, expires_in: ttl };
}

/** The SIP ladder as a text file (the same text as GET /calls/{id}/sip-log's `text`). */
export async function sipLadder(s: Services, principal: Principal, callId: string): Promise<MediaFile> {
  const log = await getCallSipLog(s, principal, callId);
  if (log.messages.length === 0) throw new NotFound("No SIP ladder for this call");
  const bytes = new TextEncoder().encode(log.text);
  return {
    body: new Blob([bytes]).stream(),
    contentType: "text/plain; charset=utf-8",
    filename: `call-${log.call_id}-sip-ladder.txt`,
    disposition: "inline",
    size: bytes.byteLength,
    etag: null,
    part: null,
  };
}

/**
 * The recording, whole or one byte range so players can seek. `pickRange` turns the object's
 * size into the part wanted ("unsatisfiable" past the end, null for the whole file).
 */
export async function recording(
  s: Services,
  principal: Principal,
  callId: string,
  pickRange?: (size: number) => ByteRange | "unsatisfiable" | null,
): Promise<MediaFile> {
  return callRecording(s, await callOfAccount(s, principal, callId), pickRange);
}

/** The recording of a call already found (by its account, or by a share link that names it). */
export async function callRecording(
  s: Services,
  row: CallRow,
  pickRange?: (size: number) => ByteRange | "unsatisfiable" | null,
): Promise<MediaFile> {
  const { call, key } = recordingKeyOf(row);
  const file = { contentType: WAV, filename: `call-${call.id}.wav`, disposition: "inline" as const };
  if (pickRange) {
    const head = await s.media.head(key);
    if (!head) throw new NotFound("No recording for this call");
    const range = pickRange(head.size);
    if (range === "unsatisfiable") throw new RangeNotSatisfiable(head.size);
    if (range) {
      // The same object the head described, or nothing: a re-upload in between must not mix two files.
      const part = await s.media.get(key, { range, onlyIf: { etagMatches: head.etag } });
      if (!part || !("body" in part)) throw new NotFound("No recording for this call");
      return { ...file, body: part.body, size: range.length, etag: part.httpEtag, part: { ...range, of: part.size } };
    }
  }
  const object = await s.media.get(key);
  if (!object) throw new NotFound("No recording for this call");
  return { ...file, body: object.body, size: object.size, etag: object.httpEtag, part: null };
}

const basename = (key: string) => key.slice(key.lastIndexOf("/") + 1);

/** The captures: one media leg's pcap as it is, several legs in one zip. */
export async function captures(s: Services, principal: Principal, callId: string): Promise<MediaFile> {
  const call = await callOfAccount(s, principal, callId);
  const keys = call.recordingPcapPaths ?? [];
  const present = (await Promise.all(keys.map((key) => s.media.head(key)))).filter((o) => o !== null);
  if (present.length === 0) throw new NotFound("No capture for this call");
  if (present.length === 1) {
    const object = await s.media.get(present[0]!.key);
    if (!object) throw new NotFound("No capture for this call");
    return {
      body: object.body,
      contentType: PCAP,
      filename: `call-${call.id}-${basename(object.key)}`,
      disposition: "attachment",
      size: object.size,
      etag: null,
      part: null,
    };
  }
  const body = zipStream(
    present.map((head) => ({
      name: basename(head.key),
      open: async () => {
        const object = await s.media.get(head.key);
        if (!object) throw new Error(`capture ${head.key} went away while zipping`);
        return object.body;
      },
    })),
  );
  return {
    body,
    contentType: "application/zip",
    filename: `call-${call.id}-pcap.zip`,
    disposition: "attachment",
    size: null,
    etag: null,
    part: null,
  };
}
