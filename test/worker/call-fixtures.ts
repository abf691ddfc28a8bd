// Calls made the way the SIP node makes them: admitted, answered and ended through the node API,
// with a stereo recording (caller left, callee right) uploaded like the node's.
import { env } from "cloudflare:test";
import { expect } from "vitest";
import { wavHeader } from "../../schema/wav.ts";
import { addDestination } from "./destination-fixtures.ts";
import { createAccount, type Session } from "./fixtures.ts";
import { addWhitelistEntry, v4Block } from "./network-fixtures.ts";
import { node } from "./node-client.ts";

const RATE = 8000;

/** What one side of a recording holds: a tone (someone talking, for the media checks) or silence. */
export type Side = "talk" | "silence";

/** A stereo 8 kHz 16-bit WAV of `seconds`: each side a varying tone (stands for speech) or silence. */
export function stereoWav(seconds: number, sides: { caller: Side; callee: Side }): Uint8Array {
  const frames = Math.round(RATE * seconds);
  const bytes = new Uint8Array(44 + frames * 4);
  bytes.set(wavHeader({ sampleRate: RATE, channels: 2, dataBytes: frames * 4 }));
  const view = new DataView(bytes.buffer);
  const voice = (i: number) => Math.round(6000 * Math.sin((2 * Math.PI * (180 + 60 * Math.sin(i / 900)) * i) / RATE));
  for (let i = 0; i < frames; i++) {
    view.setInt16(44 + i * 4, sides.caller === "talk" ? voice(i) : 0, true);
    view.setInt16(46 + i * 4, sides.callee === "talk" ? voice(i + 5000) : 0, true);
  }
  return bytes;
}

export type PlacedCall = { owner: Session; callId: string };

/** An ended call of the account, answered for `seconds` (0: never answered). */
export async function endedCall(
  owner?: Session,
  opts: { seconds?: number; destination?: Record<string, unknown> } = {},
): Promise<PlacedCall> {
  owner ??= await createAccount();
  const block = v4Block();
  await addWhitelistEntry(owner, block.cidr);
  await addDestination(owner, { is_default: true, ...opts.destination });
  const { body: ticket } = await node.admit({ src_ip: `${block.base}.5`, dialed: "14155550123" });
  expect(ticket.call_id, JSON.stringify(ticket)).toBeTypeOf("string");
  const seconds = opts.seconds ?? 20;
  const t0 = Date.now() - 60_000;
  const at = (ms: number) => new Date(t0 + ms).toISOString();
  if (seconds > 0) expect((await node.event(ticket.call_id, { type: "answered", at: at(1_000) })).status).toBe(200);
  const ended = await node.event(ticket.call_id, {
    type: "ended",
    at: at(1_000 + seconds * 1000),
    answered_at: seconds > 0 ? at(1_000) : null,
    sip_code: seconds > 0 ? 200 : 486,
    hangup_by: seconds > 0 ? "caller" : "callee",
  });
  expect(ended.status, JSON.stringify(ended.body)).toBe(200);
  return { owner, callId: ticket.call_id as string };
}

/** Uploads the call's recording as the node does at the end of the call. */
export async function uploadRecording(callId: string, wav: Uint8Array): Promise<void> {
  const res = await node.upload(callId, "recording.wav", wav);
  expect(res.status, JSON.stringify(res.body)).toBe(200);
}

/** Leaves the call out of automatic analysis (as a sampling of one in N would). */
export async function sampleOut(callId: string): Promise<void> {
  await env.DB.prepare("UPDATE calls SET sampled = 0 WHERE id = ?").bind(callId).run();
}
