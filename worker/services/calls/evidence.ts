// A call's evidence for an analyst: the bundle (a zip of the call record, the verdict, the
// transcript, the SIP log, the recording, the captures and the node's SIP log file, with a
// manifest of SHA-256 hashes) and a PDF report to forward. Both are throttled per account,
// together, by the Limiter.
//
// Memory stays bounded whatever the call's length: the zip streams (lib/zip.ts), each R2 object is
// read once and hashed on its way into the archive (crypto.DigestStream), and the manifest, which
// needs those hashes, is the archive's last entry. The JSON parts are small (the SIP log is at most
// 500 ladder rows, or the first SIP_LOG_READ_BYTES of the node's file) and are built and hashed up
// front. The report reads each object once to hash it.
import { MEDIA_CONTENT_TYPES } from "../../../schema/node-api.ts";
import { nowIso } from "../../lib/time.ts";
import { zipStream, type ZipEntry } from "../../lib/zip.ts";
import type { Analysis, CallDetail, Transcript } from "../../resources/calls.ts";
import type { MediaFile } from "./media.ts";
import { getCallSipLog, getCallTranscript } from "./records.ts";
import { sipLogKey } from "./sip-log.ts";
import { renderCallReport, type EvidenceFile } from "./report-pdf.ts";
import { getCall } from "./calls.ts";
import type { Services } from "../context.ts";
import { TooManyRequests } from "../errors.ts";
import type { Principal } from "../identity/principal.ts";

type SipLog = Awaited<ReturnType<typeof getCallSipLog>>;

const JSON_TYPE = "application/json";
const TEXT_TYPE = "text/plain; charset=utf-8";
const CONTENT_TYPES: Record<string, string> = {
  wav: MEDIA_CONTENT_TYPES["recording.wav"],
  pcap: MEDIA_CONTENT_TYPES["caller.pcap"],
  jsonl: MEDIA_CONTENT_TYPES["sip-log.jsonl"],
};

/** Counts one export or report against the account's budget; past it, 429 too_many_exports. */
async function admitExport(s: Services, principal: Principal): Promise<void> {
  const verdict = await s.limiter(`call-exports:${principal.customer.id}`).hit(s.config.CALL_EXPORT_LIMIT, s.config.CALL_EXPORT_WINDOW_SEC);
  if (!verdict.allowed) throw new TooManyRequests("too_many_exports", verdict.retryAfterSec);
}

type Evidence = {
  call: CallDetail;
  analysis: Analysis | null;
  transcript: Transcript | null;
  sipLog: SipLog | null;
  /** The media objects present in R2: the recording first, then the captures (caller's first), then the node's SIP log. */
  media: R2Object[];
};

/**
 * The call (or 404), then the throttle, then what the call has, each as its own read endpoint
 * shows it; nothing is read from R2 before the throttle admits.
 */
async function gather(s: Services, principal: Principal, callId: string): Promise<Evidence> {
  const call = await getCall(s, principal, callId);
  await admitExport(s, principal);
  const keys = [
    ...new Set([
      call.recording_available ? call.recording_wav_path : null,
      ...(call.recording_pcap_paths ?? []),
      sipLogKey({ id: call.id, customerId: call.customer_id }),
    ]),
  ];
  const [transcript, sipLog, heads] = await Promise.all([
    call.transcript ? getCallTranscript(s, principal, call.id) : null,
    getCallSipLog(s, principal, call.id),
    Promise.all(keys.filter((key) => key !== null).map((key) => s.media.head(key))),
  ]);
  return {
    call,
    analysis: call.analysis,
    transcript,
    sipLog: sipLog.messages.length > 0 ? sipLog : null,
    media: heads.filter((head) => head !== null),
  };
}

const basename = (key: string) => key.slice(key.lastIndexOf("/") + 1);
const contentTypeOf = (name: string) => CONTENT_TYPES[name.slice(name.lastIndexOf(".") + 1)] ?? "application/octet-stream";
const hex = (digest: ArrayBuffer) => [...new Uint8Array(digest)].map((b) => b.toString(16).padStart(2, "0")).join("");
const encoder = new TextEncoder();
const jsonBytes = (value: unknown) => encoder.encode(JSON.stringify(value, null, 2) + "\n");

/**
 * Passes a stream through unchanged while hashing it: `file` settles with its SHA-256 and size
 * once the last byte has gone by. The hash is taken of what the archive received, chunk by chunk.
 */
function hashedOnTheWay(name: string, body: ReadableStream<Uint8Array>) {
  const digest = new crypto.DigestStream("SHA-256");
  const writer = digest.getWriter();
  let size = 0;
  const stream = body.pipeThrough(
    new TransformStream<Uint8Array, Uint8Array>({
      async transform(chunk, controller) {
        size += chunk.byteLength;
        await writer.write(chunk);
        controller.enqueue(chunk);
      },
      async flush() {
        await writer.close();
      },
    }),
  );
  const file = digest.digest.then((d): EvidenceFile => ({ name, size, sha256: hex(d), content_type: contentTypeOf(name) }));
  return { stream, file };
}

/** The SHA-256 of an R2 object, read once as a stream. */
async function hashObject(s: Services, head: R2Object): Promise<EvidenceFile> {
  const object = await s.media.get(head.key);
  if (!object) throw new Error(`media ${head.key} went away while hashing`);
  const { stream, file } = hashedOnTheWay(basename(head.key), object.body);
  await stream.pipeTo(new WritableStream());
  return file;
}

const streamOf = (bytes: Uint8Array) => new Blob([bytes]).stream();

/**
 * The evidence bundle: call.json, analysis.json and transcript.json when the call has them,
 * sip-log.json and sip-log.txt when the ladder was kept (built from the node's SIP log file when it
 * uploaded one), the recording, the captures and that file (sip-log.jsonl) as R2 holds them, and
 * manifest.json last, listing every other file with its size and SHA-256.
 */
export async function callExport(s: Services, principal: Principal, callId: string): Promise<MediaFile> {
  const evidence = await gather(s, principal, callId);
  const { call } = evidence;
  const parts: { name: string; bytes: Uint8Array; type: string }[] = [{ name: "call.json", bytes: jsonBytes(call), type: JSON_TYPE }];
  if (evidence.analysis) parts.push({ name: "analysis.json", bytes: jsonBytes(evidence.analysis), type: JSON_TYPE });
  if (evidence.transcript) parts.push({ name: "transcript.json", bytes: jsonBytes(evidence.transcript), type: JSON_TYPE });
  if (evidence.sipLog) {
    parts.push({ name: "sip-log.json", bytes: jsonBytes(evidence.sipLog), type: JSON_TYPE });
    parts.push({ name: "sip-log.txt", bytes: encoder.encode(evidence.sipLog.text), type: TEXT_TYPE });
  }
  const listed: Promise<EvidenceFile>[] = parts.map(async (p) => ({
    name: p.name,
    size: p.bytes.byteLength,
    sha256: hex(await crypto.subtle.digest("SHA-256", p.bytes)),
    content_type: p.type,
  }));
  const entries: ZipEntry[] = parts.map((p) => ({ name: p.name, open: async () => streamOf(p.bytes) }));
  for (const head of evidence.media) {
    entries.push({
      name: basename(head.key),
      open: async () => {
        const object = await s.media.get(head.key);
        if (!object) throw new Error(`media ${head.key} went away while zipping`);
        const { stream, file } = hashedOnTheWay(basename(head.key), object.body);
        listed.push(file);
        return stream;
      },
    });
  }
  entries.push({
    name: "manifest.json",
    // Opened after every other entry has been read through, so each hash is settled by then.
    open: async () =>
      streamOf(jsonBytes({ call_id: call.id, generated_at: nowIso(), algorithm: "SHA-256", files: await Promise.all(listed) })),
  });
  return {
    body: zipStream(entries),
    contentType: "application/zip",
    filename: `call-${call.id}-evidence.zip`,
    disposition: "attachment",
    size: null,
    etag: null,
    part: null,
  };
}

/** The report a fraud analyst forwards: verdict, call facts and timing, quality, transcript excerpt, evidence hashes. */
export async function callReport(s: Services, principal: Principal, callId: string): Promise<MediaFile> {
  const evidence = await gather(s, principal, callId);
  const files = await Promise.all(evidence.media.map((head) => hashObject(s, head)));
  const pdf = await renderCallReport({
    call: evidence.call,
    analysis: evidence.analysis,
    transcript: evidence.transcript,
    evidence: files,
    account: principal.customer.company,
    generatedAt: nowIso(),
  });
  return {
    body: streamOf(pdf),
    contentType: "application/pdf",
    filename: `call-${evidence.call.id}-report.pdf`,
    disposition: "inline",
    size: pdf.byteLength,
    etag: null,
    part: null,
  };
}
