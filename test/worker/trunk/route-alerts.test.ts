// False answer supervision read from the called side of a recording.
import { describe, expect, it } from "vitest";
import type { WavAudio } from "../../../schema/wav.ts";
import { routeAlertOf } from "../../../worker/services/alerts/route-alerts.ts";

const RATE = 8000;

/** A stereo recording: the caller talks throughout; the callee side is built by `callee(t)` (t in seconds). */
function recording(seconds: number, callee: (t: number) => number): WavAudio {
  const frames = RATE * seconds;
  const samples = new Int16Array(frames * 2);
  for (let i = 0; i < frames; i++) {
    const t = i / RATE;
    samples[i * 2] = Math.round(5000 * Math.sin(2 * Math.PI * 200 * t) * Math.sin(2 * Math.PI * 3 * t));
    samples[i * 2 + 1] = Math.round(callee(t));
  }
  return { sampleRate: RATE, channels: 2, bitsPerSample: 16, samples };
}

/** Speech-like sound: several drifting harmonics with a syllable envelope, and a little noise. */
const speech = (t: number) =>
  (3000 * Math.sin(2 * Math.PI * (140 + 30 * Math.sin(t * 2)) * t) +
    2000 * Math.sin(2 * Math.PI * (610 + 90 * Math.sin(t * 5)) * t) +
    1500 * Math.sin(2 * Math.PI * (1500 + 200 * Math.sin(t * 3)) * t)) *
    Math.abs(Math.sin(2 * Math.PI * 2.5 * t)) +
  (Math.random() - 0.5) * 200;

/** North American ringback: 440 + 480 Hz, two seconds on, four off. */
const ringback = (t: number) => (t % 6 < 2 ? 4000 * (Math.sin(2 * Math.PI * 440 * t) + Math.sin(2 * Math.PI * 480 * t)) : 0);

describe("routeAlertOf", () => {
  it("finds no live party when the called side stays silent through the answered call", () => {
    const alert = routeAlertOf(
      recording(12, () => 0),
      1,
      12,
    );
    expect(alert).toMatchObject({ kind: "no_live_party", first_sound_at_sec: null, callee_talk_ratio: 0 });
  });

  it("finds delayed playback when the first sound comes seconds after the answer", () => {
    const alert = routeAlertOf(
      recording(15, (t) => (t < 6 ? 0 : speech(t))),
      1,
      15,
    );
    expect(alert?.kind).toBe("delayed_playback");
    expect(alert!.first_sound_at_sec).toBeGreaterThanOrEqual(5.9);
    expect(alert!.first_sound_at_sec).toBeLessThan(6.3);
  });

  it("finds a ringback tone heard after the answer", () => {
    expect(routeAlertOf(recording(12, ringback), 1, 12)?.kind).toBe("ringback_after_answer");
  });

  it("raises nothing for a called side that answers and talks", () => {
    expect(
      routeAlertOf(
        recording(12, (t) => (t < 0.8 ? 0 : speech(t))),
        1,
        12,
      ),
    ).toBeNull();
  });

  it("raises nothing for a call too short to tell", () => {
    expect(
      routeAlertOf(
        recording(3, () => 0),
        1,
        3,
      ),
    ).toBeNull();
  });
});
