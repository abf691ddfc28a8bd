// Every message of one call as it crossed the wire, both legs, retransmissions included: the
// call router hands those with one of the call's Call-IDs here, through the registry. Lines are
// kept in memory until the Worker admits the call (it names the spool file), then appended to
// the call's `sip-log.jsonl` as they come. After the end the log stays open
// while the messages answering it arrive (the 200 of our BYE, the ACK of our final answer), and
// is then closed and handed to the Worker like the recording.
import { rm } from "node:fs/promises";
import type { SipLogLine } from "../../schema/node-api.ts";
import type { MediaFile } from "../media/relay.ts";
import type { SipLogWriter } from "../media/sip-log.ts";
import type { SipMessage } from "../sip/message.ts";
import { serializeMessage } from "../sip/serializer.ts";
import type { Endpoint } from "../sip/transport.ts";
import { describeMessage } from "./call-report.ts";

type Address = { address: string; port: number };

/** Lines kept before the call is admitted (its INVITE, our 100, retransmissions, a CANCEL). */
const MAX_PENDING = 64;
/** After the end, the log closes once the call has been quiet this long with none of our requests unanswered... */
export const SIP_LOG_QUIET_MS = 2_000;
/** ...or this long after the end at the latest (RFC 3261's 64*T1, when retransmissions stop). */
export const SIP_LOG_MAX_LINGER_MS = 32_000;

const decoder = new TextDecoder();

export class CallSipLog {
  private readonly local: Address;
  private pending: SipLogLine[] | null = [];
  private writer: SipLogWriter | null = null;
  private ending: { since: number; unanswered: () => number; done: (file: MediaFile | null) => void } | null = null;
  private timer: ReturnType<typeof setTimeout> | null = null;
  private closed = false;

  constructor(local: Address) {
    this.local = local;
  }

  /** A message of the call on the wire; `bytes` as they were, or null (a stream message, serialized again). */
  record(direction: "in" | "out", message: SipMessage, bytes: Uint8Array | null, peer: Endpoint): void {
    if (this.closed) return;
    const [from, to] = direction === "in" ? [peer, this.local] : [this.local, peer];
    const line: SipLogLine = { ...describeMessage(direction, message, from, to), raw: rawText(message, bytes) };
    if (this.writer) this.writer.write(line);
    else if (this.pending && this.pending.length < MAX_PENDING) this.pending.push(line);
    if (this.ending && !this.lingeredTooLong()) this.waitQuiet();
  }

  /** The call has its id: the file opens (made by `create`, once) and what came before goes first. */
  open(create: () => SipLogWriter): void {
    if (this.closed || this.writer) return;
    const writer = (this.writer = create());
    for (const line of this.pending ?? []) writer.write(line);
    this.pending = null;
  }

  /** A call the Worker never recorded: nothing is kept. */
  discard(): void {
    this.closed = true;
    this.pending = null;
  }

  /**
   * The call ended: resolves with the file to hand over once the messages answering the end have
   * come (or null when there is none). `unanswered` counts our requests still awaiting a final answer.
   */
  end(unanswered: () => number): Promise<MediaFile | null> {
    if (this.ending) return Promise.resolve(null);
    if (this.closed || !this.writer) {
      this.discard();
      return Promise.resolve(null);
    }
    return new Promise((done) => {
      this.ending = { since: Date.now(), unanswered, done };
      this.waitQuiet();
    });
  }

  private lingeredTooLong(): boolean {
    return Date.now() - this.ending!.since >= SIP_LOG_MAX_LINGER_MS;
  }

  private waitQuiet(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = setTimeout(() => this.closeWhenQuiet(), SIP_LOG_QUIET_MS);
    this.timer.unref?.();
  }

  private closeWhenQuiet(): void {
    const ending = this.ending!;
    if (ending.unanswered() > 0 && !this.lingeredTooLong()) return this.waitQuiet();
    this.closed = true;
    const writer = this.writer!;
    // An empty log, or one that could not be written, is not handed over.
    const dropped = () =>
      rm(writer.path, { force: true }).then(
        () => ending.done(null),
        () => ending.done(null),
      );
    writer.close().then((summary) => (summary.lines > 0 ? ending.done({ name: "sip-log.jsonl", path: summary.path }) : dropped()), dropped);
  }
}

/** The message as it crossed the wire; a message from a stream is serialized again from what was parsed. */
function rawText(message: SipMessage, bytes: Uint8Array | null): string {
  if (bytes) return decoder.decode(bytes);
  try {
    return decoder.decode(serializeMessage(message));
  } catch {
    return "";
  }
}
