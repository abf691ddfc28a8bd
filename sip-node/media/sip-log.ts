// A call's SIP log in the spool: one JSON line per message (schema/node-api.ts SipLogLine),
// appended as the call goes, like the recording and the captures, and handed over the same way
// (`sip-log.jsonl`). The file never grows past what the Worker accepts.
import { createWriteStream, type WriteStream } from "node:fs";
import { open, rm, stat } from "node:fs/promises";
import { MAX_MEDIA_BYTES, type SipLogLine } from "../../schema/node-api.ts";
import { endStream } from "./file-output.ts";
import { SPOOL_FILE_MODE } from "./spool.ts";

export type SipLogWriterOptions = { /** Lines that would take the file past this size are dropped. */ maxBytes?: number };
export type SipLogSummary = { path: string; bytes: number; lines: number; dropped: number };

export class SipLogWriter {
  readonly path: string;
  private readonly maxBytes: number;
  private readonly stream: WriteStream;
  private bytes = 0;
  private lines = 0;
  private droppedLines = 0;
  private error: Error | null = null;
  private closing: Promise<SipLogSummary> | null = null;

  constructor(path: string, options: SipLogWriterOptions = {}) {
    this.path = path;
    this.maxBytes = options.maxBytes ?? MAX_MEDIA_BYTES;
    this.stream = createWriteStream(path, { mode: SPOOL_FILE_MODE });
    // Without a listener a failed open or write would crash the process; close() reports it.
    this.stream.on("error", (error) => (this.error ??= error));
  }

  get written(): number {
    return this.lines;
  }

  get dropped(): number {
    return this.droppedLines;
  }

  /** Appends one message; dropped once the file is full, closing or failed. */
  write(line: SipLogLine): void {
    if (this.closing || this.error) {
      this.droppedLines++;
      return;
    }
    const text = `${JSON.stringify(line)}\n`;
    const size = Buffer.byteLength(text, "utf8");
    if (this.bytes + size > this.maxBytes) {
      this.droppedLines++;
      return;
    }
    this.bytes += size;
    this.lines++;
    this.stream.write(text);
  }

  /** Ends the file; rejects if it could not be written. */
  close(): Promise<SipLogSummary> {
    this.closing ??= endStream(this.stream, () => this.error).then(() => ({
      path: this.path,
      bytes: this.bytes,
      lines: this.lines,
      dropped: this.droppedLines,
    }));
    return this.closing;
  }
}

/**
 * A SIP log left by a run that stopped mid-write keeps only its whole lines; false when none is
 * left, and the file is then deleted (the Worker takes no empty upload).
 */
export async function repairSipLog(path: string): Promise<boolean> {
  const { size } = await stat(path);
  if (size > 0) {
    const file = await open(path, "r+");
    try {
      // Back from the end, a chunk at a time, to the last newline.
      const chunk = Buffer.alloc(Math.min(size, 64 * 1024));
      let end = 0;
      for (let at = size; at > 0;) {
        const from = Math.max(0, at - chunk.length);
        const { bytesRead } = await file.read(chunk, 0, at - from, from);
        const newline = chunk.subarray(0, bytesRead).lastIndexOf(0x0a);
        if (newline >= 0) {
          end = from + newline + 1;
          break;
        }
        at = from;
      }
      if (end < size) await file.truncate(end);
      if (end > 0) return true;
    } finally {
      await file.close();
    }
  }
  await rm(path, { force: true });
  return false;
}
