// False answer supervision, read from the callee's side of the recording: a route that answers
// the call (and starts billing) before anybody is there. Evidence kinds (known-values.md):
//   no_live_party     the callee side stays silent for the whole answered call
//   delayed_playback  the first sound on the callee side comes seconds after the answer
//   ringback_after_answer  a ringback tone is heard after the answer (the far end was still ringing)
import type { WavAudio } from "../../../schema/wav.ts";

const FRAME_MS = 20;
/** Below this RMS (of 32767) a frame is silence; telephone noise floors sit well under it. */
const SILENCE_RMS = 300;
/** An answered call this long with a silent far end is suspicious; shorter ones may be hang-ups. */
const MIN_ANSWERED_SEC = 5;
const DELAYED_AFTER_SEC = 4;
/** Ringback tones: North American 440+480 Hz, and 425 Hz used across Europe and elsewhere. */
const RINGBACK_HZ = [425, 440, 480];

export type RouteAlert = {
  kind: "no_live_party" | "delayed_playback" | "ringback_after_answer";
  detail: string;
  first_sound_at_sec: number | null;
  callee_talk_ratio: number;
};

/** The route alert a recording shows on the given channel (the callee's), or null. */
export function routeAlertOf(audio: WavAudio, calleeChannel: number, answeredSeconds: number): RouteAlert | null {
  if (answeredSeconds < MIN_ANSWERED_SEC) return null;
  const frames = callee(audio, calleeChannel);
  if (frames.length === 0) return null;
  const loud = frames.map((f) => rms(f) >= SILENCE_RMS);
  const firstLoud = loud.indexOf(true);
  const ratio = loud.filter(Boolean).length / loud.length;
  const firstSoundAt = firstLoud < 0 ? null : (firstLoud * FRAME_MS) / 1000;
  const facts = { first_sound_at_sec: firstSoundAt, callee_talk_ratio: Math.round(ratio * 100) / 100 };
  if (firstLoud < 0) {
    return { kind: "no_live_party", detail: `No sound from the called side in ${answeredSeconds} s after the answer`, ...facts };
  }
  const ringing = frames.slice(firstLoud, firstLoud + 3000 / FRAME_MS).filter((f) => rms(f) >= SILENCE_RMS && isTone(f, audio.sampleRate));
  if (ringing.length >= 1000 / FRAME_MS) {
    return { kind: "ringback_after_answer", detail: "A ringback tone is heard on the called side after the answer", ...facts };
  }
  if (firstSoundAt! >= DELAYED_AFTER_SEC) {
    return { kind: "delayed_playback", detail: `The called side is silent for ${firstSoundAt!.toFixed(1)} s after the answer`, ...facts };
  }
  return null;
}

function callee(audio: WavAudio, channel: number): Int16Array[] {
  const perFrame = (audio.sampleRate * FRAME_MS) / 1000;
  const total = Math.floor(audio.samples.length / audio.channels / perFrame);
  const frames: Int16Array[] = [];
  for (let f = 0; f < total; f++) {
    const frame = new Int16Array(perFrame);
    for (let i = 0; i < perFrame; i++) frame[i] = audio.samples[(f * perFrame + i) * audio.channels + channel]!;
    frames.push(frame);
  }
  return frames;
}

function rms(frame: Int16Array): number {
  let sum = 0;
  for (const s of frame) sum += s * s;
  return Math.sqrt(sum / frame.length);
}

/** Goertzel power at a frequency, relative to the frame's energy. */
function toneShare(frame: Int16Array, hz: number, sampleRate: number): number {
  const k = 2 * Math.cos((2 * Math.PI * hz) / sampleRate);
  let s1 = 0;
  let s2 = 0;
  let energy = 0;
  for (const x of frame) {
    const s0 = x + k * s1 - s2;
    s2 = s1;
    s1 = s0;
    energy += x * x;
  }
  const power = s1 * s1 + s2 * s2 - k * s1 * s2;
  return energy === 0 ? 0 : power / ((energy * frame.length) / 2);
}

/** A frame whose energy sits almost all in the ringback frequencies. */
const isTone = (frame: Int16Array, sampleRate: number) => RINGBACK_HZ.reduce((sum, hz) => sum + toneShare(frame, hz, sampleRate), 0) > 0.6;
