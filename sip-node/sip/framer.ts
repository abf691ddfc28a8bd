// Message framing on stream transports (TCP, TLS; RFC 3261 §18.3, RFC 5626 §3.5.1).
//
// Bytes arrive in arbitrary chunks; push() returns every message completed so far. CRLFs
// between messages are keep-alives and are skipped (a double CRLF is a ping, reported to
// onPing so the transport can answer with a single CRLF pong). Content-Length is mandatory
// on streams. A stream that cannot be framed any more (missing or conflicting
// Content-Length, a header section or message beyond limits.maxMessageBytes, a header
// section that is not SIP) makes push throw SipParseError: the caller closes the
// connection, and the framer keeps throwing afterwards. A message that is framed correctly
// but invalid (SipMessageError: missing To, bad Via, ...) goes to onInvalid when one is
// given, and framing continues; without onInvalid it is thrown like a framing error.
//
// Memory: at most limits.maxMessageBytes are kept between calls (a partial message), so the
// framer never holds more than that plus the chunk being pushed.
import { DEFAULT_LIMITS, SipParseError, type ParseLimits, type SipMessage } from "./message.ts";
import { SipMessageError, completeMessage, copyBytes, findBlankLine, parseMessageHead, type MessageHead } from "./parser.ts";

export type StreamFramerOptions = {
  /** A framed but invalid message; the framer continues with the next one. */
  onInvalid?: (error: SipMessageError) => void;
  /** A keep-alive ping (CRLFCRLF) was received: answer with a single CRLF. */
  onPing?: () => void;
};

const CR = 13;
const LF = 10;
const EMPTY = new Uint8Array(0);

export class StreamFramer {
  private readonly limits: ParseLimits;
  private readonly onInvalid: ((error: SipMessageError) => void) | undefined;
  private readonly onPing: (() => void) | undefined;
  /** Bytes kept between pushes: buffer[0, length) is the start of an incomplete message. */
  private buffer: Uint8Array = EMPTY;
  private length = 0;
  /** Where to resume looking for the blank line, relative to the kept bytes. */
  private scanFrom = 0;
  /** The head of the message whose body is awaited, and where its body starts. */
  private head: MessageHead | null = null;
  private bodyStart = 0;
  /** Consecutive CRLFs skipped between messages (two make a ping); a CR awaiting its LF. */
  private crlfs = 0;
  private pendingCr = false;
  private failure: unknown = null;

  constructor(limits: ParseLimits = DEFAULT_LIMITS, options: StreamFramerOptions = {}) {
    this.limits = limits;
    this.onInvalid = options.onInvalid;
    this.onPing = options.onPing;
  }

  /** Bytes currently held for an incomplete message. */
  get buffered(): number {
    return this.length;
  }

  /** Feeds a chunk; returns the messages it completed, in order. */
  push(chunk: Uint8Array): SipMessage[] {
    if (this.failure !== null) throw this.failure;
    const messages: SipMessage[] = [];
    // Work on the chunk itself when nothing is pending; otherwise append it to the kept bytes.
    const owned = this.length !== 0;
    let data: Uint8Array;
    if (!owned) data = chunk;
    else {
      this.append(chunk);
      data = this.buffer.subarray(0, this.length);
    }
    let pos = 0;
    try {
      pos = this.frame(data, messages);
    } catch (error) {
      // Whatever stopped the framing (including an exception from onInvalid), the stream
      // position is lost: the framer stays failed.
      this.failure = error;
      this.buffer = EMPTY;
      this.length = 0;
      this.head = null;
      throw error;
    }
    this.keep(data, pos, owned);
    return messages;
  }

  /** Frames messages out of data; returns how far it consumed. */
  private frame(data: Uint8Array, messages: SipMessage[]): number {
    const max = this.limits.maxMessageBytes;
    let pos = 0;
    for (;;) {
      if (this.head === null) {
        pos = this.skipKeepAlives(data, pos);
        if (pos >= data.length) return pos;
        const blank = findBlankLine(data, pos + Math.max(0, this.scanFrom - 3));
        if (blank < 0) {
          if (data.length - pos > max) {
            throw new SipParseError(`no end of header section within ${max} bytes`, 513);
          }
          this.scanFrom = data.length - pos;
          return pos;
        }
        this.scanFrom = 0;
        if (blank + 4 - pos > max) throw new SipParseError(`header section longer than ${max} bytes`, 513);
        const head = parseMessageHead(data, pos, blank + 2, this.limits);
        if (head.contentLength === null) {
          throw new SipParseError("missing Content-Length on a stream transport");
        }
        this.bodyStart = blank + 4 - pos;
        if (this.bodyStart + head.contentLength > max) {
          throw new SipParseError(`message of ${this.bodyStart + head.contentLength} bytes exceeds ${max}`, 513);
        }
        this.head = head;
      }
      const head = this.head;
      const total = this.bodyStart + head.contentLength!;
      if (data.length - pos < total) return pos;
      const body = copyBytes(data, pos + this.bodyStart, head.contentLength!);
      this.head = null;
      pos += total;
      try {
        messages.push(completeMessage(head, body));
      } catch (error) {
        if (error instanceof SipMessageError && this.onInvalid !== undefined) this.onInvalid(error);
        else throw error;
      }
    }
  }

  /** Skips CR and LF octets before a start line, reporting each CRLFCRLF as a ping. */
  private skipKeepAlives(data: Uint8Array, pos: number): number {
    while (pos < data.length) {
      const b = data[pos];
      if (b === CR) this.pendingCr = true;
      else if (b === LF) {
        if (this.pendingCr && ++this.crlfs === 2) {
          this.crlfs = 0;
          this.onPing?.();
        }
        this.pendingCr = false;
      } else {
        this.crlfs = 0;
        this.pendingCr = false;
        break;
      }
      pos++;
    }
    return pos;
  }

  /** Appends a chunk to the kept bytes, growing the buffer as needed. */
  private append(chunk: Uint8Array): void {
    const needed = this.length + chunk.length;
    if (needed > this.buffer.length) {
      const grown = new Uint8Array(Math.max(needed, Math.min(this.buffer.length * 2, this.limits.maxMessageBytes)));
      grown.set(this.buffer.subarray(0, this.length));
      this.buffer = grown;
    }
    this.buffer.set(chunk, this.length);
    this.length = needed;
  }

  /** Keeps data[pos, end) (an incomplete message) for the next push; `owned` when data is this.buffer. */
  private keep(data: Uint8Array, pos: number, owned: boolean): void {
    const rest = data.length - pos;
    if (rest === 0) {
      this.length = 0;
      // Release a large buffer once it has drained.
      if (this.buffer.length > 16_384) this.buffer = EMPTY;
      return;
    }
    if (owned) {
      if (pos > 0) this.buffer.copyWithin(0, pos, pos + rest);
    } else {
      if (this.buffer.length < rest) this.buffer = new Uint8Array(Math.max(rest, 4096));
      this.buffer.set(data.subarray(pos));
    }
    this.length = rest;
  }
}
