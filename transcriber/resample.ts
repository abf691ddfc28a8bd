// Turns any mono audio into what the engine wants: 16 kHz 16-bit samples, resampled with a
// windowed-sinc low-pass. Two more steps, because the engine's acoustic model was trained on clean
// 16 kHz speech whose filter bank reaches 6.8 kHz:
//  - band extension, for telephone audio (8 kHz or less): on an empty 4-8 kHz band the model
//    recognises almost nothing, so after the 2x upsampling a copy of the 0-4 kHz spectrum is
//    mirrored into 4-8 kHz (the signal times 1 + g(-1)^n; g = 1 is plain zero-stuffing);
//  - comfort noise, for wideband audio: a low, seeded (so repeatable) white noise under the
//    speech; synthesised speech and digital silence otherwise leave filter-bank channels at zero
//    energy, which the model has never seen.
// The settings were chosen on a development set kept apart from the measured sets (README.md).

export const ENGINE_RATE = 16_000;
const TELEPHONE_RATE = 8000;

export type FrontEndOptions = {
  /** Level of the mirrored 4-8 kHz band relative to 0-4 kHz, for input at 8 kHz or less (0 turns it off). */
  foldGain: number;
  /** Comfort noise in dB under the normalised peak level, for input over 8 kHz (Infinity turns it off). */
  widebandNoiseDb: number;
  /** The same for input at 8 kHz or less. */
  telephoneNoiseDb: number;
};

export const DEFAULT_FRONT_END: FrontEndOptions = { foldGain: 1, widebandNoiseDb: 50, telephoneNoiseDb: Infinity };

/** Normalised level: the loud end of the signal (99.9th percentile of magnitudes) lands here. */
const TARGET_PEAK = 0.5;
/** At most this much gain (x10 = 20 dB), so that near-silence is not blown up into speech. */
const MAX_GAIN = 10;

/** 16 kHz 16-bit samples for the engine. */
export function toEngineInput(samples: Float32Array, sampleRate: number, options: FrontEndOptions = DEFAULT_FRONT_END): Int16Array {
  const telephone = sampleRate <= TELEPHONE_RATE;
  let wide: Float32Array;
  if (telephone) {
    const narrow = sampleRate === TELEPHONE_RATE ? samples : resample(samples, sampleRate, TELEPHONE_RATE);
    wide = resample(narrow, TELEPHONE_RATE, ENGINE_RATE);
    if (options.foldGain > 0) foldBand(wide, options.foldGain);
  } else {
    wide = sampleRate === ENGINE_RATE ? Float32Array.from(samples) : resample(samples, sampleRate, ENGINE_RATE);
  }
  normalise(wide);
  const noiseDb = telephone ? options.telephoneNoiseDb : options.widebandNoiseDb;
  if (Number.isFinite(noiseDb)) addNoise(wide, TARGET_PEAK * 10 ** (-noiseDb / 20));
  const out = new Int16Array(wide.length);
  for (let i = 0; i < wide.length; i++) out[i] = Math.max(-32768, Math.min(32767, Math.round(wide[i]! * 32768)));
  return out;
}

/**
 * Band-limited resampling by a windowed sinc (Blackman window, 16 zero crossings a side at the
 * lower of the two rates), cut off at 95% of the lower Nyquist frequency.
 */
export function resample(input: Float32Array, from: number, to: number): Float32Array {
  if (from === to) return Float32Array.from(input);
  const ratio = to / from;
  const cutoff = 0.95 * Math.min(1, ratio); // in cycles per input sample, times 2 (1 = input Nyquist)
  const halfWidth = Math.ceil(16 / cutoff); // input samples on each side
  const out = new Float32Array(Math.floor(input.length * ratio));
  for (let j = 0; j < out.length; j++) {
    const t = j / ratio;
    const centre = Math.floor(t);
    let sum = 0;
    for (let i = centre - halfWidth + 1; i <= centre + halfWidth; i++) {
      if (i < 0 || i >= input.length) continue;
      const d = t - i;
      sum += input[i]! * cutoff * sinc(cutoff * d) * blackman(d / halfWidth);
    }
    out[j] = sum;
  }
  return out;
}

/** Adds the mirror image of the lower half band into the upper half: x[n] * (1 + g * (-1)^n). */
function foldBand(samples: Float32Array, gain: number): void {
  for (let n = 0; n < samples.length; n++) samples[n] = samples[n]! * (n & 1 ? 1 - gain : 1 + gain);
}

function normalise(samples: Float32Array): void {
  if (samples.length === 0) return;
  const magnitudes = Float32Array.from(samples, Math.abs).sort();
  const loud = magnitudes[Math.min(magnitudes.length - 1, Math.floor(magnitudes.length * 0.999))]!;
  if (loud <= 0) return;
  const gain = Math.min(MAX_GAIN, TARGET_PEAK / loud);
  for (let i = 0; i < samples.length; i++) samples[i] = samples[i]! * gain;
}

/** Adds white noise of the given RMS from a fixed seed, so the same input always gives the same output. */
function addNoise(samples: Float32Array, rms: number): void {
  let seed = 0x2545f491;
  const uniform = () => {
    // mulberry32
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  // The sum of 12 uniforms less 6 is close to a unit normal.
  for (let i = 0; i < samples.length; i++) {
    let g = -6;
    for (let k = 0; k < 12; k++) g += uniform();
    samples[i] = samples[i]! + g * rms;
  }
}

function sinc(x: number): number {
  if (x === 0) return 1;
  const px = Math.PI * x;
  return Math.sin(px) / px;
}

function blackman(x: number): number {
  if (x <= -1 || x >= 1) return 0;
  const p = Math.PI * (x + 1); // x in (-1, 1) -> phase in (0, 2π)
  return 0.42 - 0.5 * Math.cos(p) + 0.08 * Math.cos(2 * p);
}
