// A call's SIP log as the API shows it: from the file the node uploaded (sip-log.jsonl, every
// message of both legs, each whole as it crossed the wire) when R2 holds one, else from the ladder
// rows of the call's end event (at most 500, whole only when the node sent them so). Either way:
// the messages in the SIP log message shape, and the same ladder as plain text.
import { SipLogLine } from "../../../schema/node-api.ts";
import { mediaKey } from "../../lib/media-keys.ts";
import type { Services } from "../context.ts";

/** How much of an uploaded log one answer reads: the rest is left to the evidence bundle's sip-log.jsonl. */
export const SIP_LOG_READ_BYTES = 4 * 1024 * 1024;

/** One message as GET /calls/{id}/sip-log lists it. */
export type SipLogMessageOut = {
  time_stamp: string;
  direction: string;
  method: string;
  status: string | null;
  fromip: string;
  toip: string;
  fromtag: string | null;
  totag: string | null;
  first_line: string;
  headers: Record<string, unknown> | null;
};
/** A message with its wire text, when known: what the plain-text ladder is written from. */
export type LadderMessage = SipLogMessageOut & { raw: string | null };

/** Where the node's upload of the call's SIP log is kept. */
export const sipLogKey = (call: { id: string; customerId: string }) => mediaKey(call.customerId, call.id, "sip-log.jsonl");

/**
 * The uploaded SIP log, or null when there is none (or nothing in it could be read). Only the first
 * SIP_LOG_READ_BYTES are read; `omittedBytes` says how much of the file that leaves out.
 */
export async function uploadedSipLog(
  s: Services,
  call: { id: string; customerId: string },
): Promise<{ messages: LadderMessage[]; omittedBytes: number } | null> {
  const key = sipLogKey(call);
  const head = await s.media.head(key);
  if (!head) return null;
  const object = await s.media.get(key, head.size > SIP_LOG_READ_BYTES ? { range: { offset: 0, length: SIP_LOG_READ_BYTES } } : {});
  if (!object) return null;
  const bytes = new Uint8Array(await object.arrayBuffer());
  // Only whole lines: a read cut short stops at the last newline it reached.
  const whole = bytes.byteLength < object.size ? bytes.subarray(0, bytes.lastIndexOf(0x0a) + 1) : bytes;
  const messages: LadderMessage[] = [];
  for (const text of new TextDecoder().decode(whole).split("\n")) {
    const line = parseLine(text);
    if (line) messages.push(messageOf(line));
  }
  return messages.length > 0 ? { messages, omittedBytes: object.size - whole.byteLength } : null;
}

/** A line of the file, or null for one that is not a SIP log line (a blank line, a line cut short). */
function parseLine(text: string): SipLogLine | null {
  if (!text.trim()) return null;
  try {
    const parsed = SipLogLine.safeParse(JSON.parse(text));
    return parsed.success ? parsed.data : null;
  } catch {
    return null;
  }
}

function messageOf(line: SipLogLine): LadderMessage {
  return {
    time_stamp: line.time_stamp,
    direction: line.direction,
    method: line.method,
    status: line.status ?? null,
    fromip: line.fromip,
    toip: line.toip,
    fromtag: line.fromtag ?? null,
    totag: line.totag ?? null,
    first_line: line.first_line,
    headers: headersOf(line.raw),
    raw: line.raw,
  };
}

/** The header fields of a raw message, by name as written: one value as a string, a repeated field as a list. */
function headersOf(raw: string): Record<string, unknown> | null {
  const end = raw.search(/\r?\n\r?\n/);
  const lines = (end < 0 ? raw : raw.slice(0, end)).split(/\r?\n/).slice(1);
  const fields: Array<[string, string]> = [];
  for (const line of lines) {
    const last = fields[fields.length - 1];
    // A line starting with white space continues the field before it (RFC 3261 §7.3.1).
    if (/^[ \t]/.test(line) && last) last[1] += ` ${line.trim()}`;
    else {
      const colon = line.indexOf(":");
      if (colon > 0) fields.push([line.slice(0, colon).trim(), line.slice(colon + 1).trim()]);
    }
  }
  if (fields.length === 0) return null;
  const headers: Record<string, string | string[]> = {};
  for (const [name, value] of fields) {
    const seen = headers[name];
    headers[name] = seen === undefined ? value : [...(Array.isArray(seen) ? seen : [seen]), value];
  }
  return headers;
}

/** The message as the API lists it (its wire text is in the ladder's text). */
export const messageOut = ({ raw: _raw, ...message }: LadderMessage): SipLogMessageOut => message;

/**
 * The ladder as text, one block per message: a line "---- <time> <in|out> <from> -> <to>", then
 * the message as it crossed the wire (line ends made \n); without the raw message, its first
 * line and the headers the node kept.
 */
export function ladderText(messages: LadderMessage[]): string {
  return messages
    .map((m) => {
      const body = m.raw ? m.raw.replace(/\r\n?/g, "\n").replace(/\s+$/, "") : [m.first_line, ...headerLines(m.headers)].join("\n");
      return `---- ${m.time_stamp} ${m.direction} ${m.fromip} -> ${m.toip}\n${body}\n`;
    })
    .join("\n");
}

function headerLines(headers: Record<string, unknown> | null): string[] {
  if (!headers) return [];
  return Object.entries(headers).flatMap(([name, value]) =>
    (Array.isArray(value) ? value : [value]).map((v) => `${name}: ${typeof v === "string" ? v : JSON.stringify(v)}`),
  );
}
