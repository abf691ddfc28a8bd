// The calls pipeline's offline engines, timed on generated recordings: stereo 8 kHz 16-bit WAV
// files like the SIP node's recorder writes (caller on channel 0, callee on channel 1), each side
// spoken by espeak-ng from a conversation of the analyser's corpus, turn after turn, the other
// side silent meanwhile. Each stage goes through the Worker's own code, imported from Node:
//   - read: the WAV file's bytes, nothing else (the baseline);
//   - transcription: schema/wav.ts parseWav, then services/analysis/transcription.ts transcribeRecording
//     with the OpenAI-compatible adapter, so one POST /v1/audio/transcriptions per channel, both
//     at once, to the offline transcriber (transcriber/);
//   - analysis: providers/analysis/embedded.ts EmbeddedAnalyser on the transcript and call facts;
//   - pipeline: the three, one call after another, as the queue consumer runs its jobs.
import { spawn, spawnSync } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { parseWav, wavHeader } from "../../schema/wav.ts";
import { CORPUS } from "../../test/worker/analysis/corpus/index.ts";
import { EmbeddedAnalyser } from "../../worker/providers/analysis/embedded.ts";
import { OpenAiCompatibleTranscriber } from "../../worker/providers/transcription/openai-compatible.ts";
import { transcribeRecording } from "../../worker/services/analysis/transcription.ts";

const RATE = 8000;
const GAP_SECONDS = 0.4;
const root = new URL("../..", import.meta.url).pathname;

/** Whether espeak-ng and sox are installed (Debian packages espeak-ng and sox). */
export function speechToolsMissing() {
  return ["espeak-ng", "sox"].filter((tool) => spawnSync(tool, ["--version"], { stdio: "ignore" }).error);
}

/** 8 kHz mono 16-bit samples of `text` spoken by espeak-ng (en-us), resampled by sox. */
function speak(text) {
  const wav = spawnSync("espeak-ng", ["-v", "en-us", "-s", "165", "--stdout", text], { maxBuffer: 64 << 20 });
  if (wav.status !== 0) throw new Error(`espeak-ng failed: ${wav.stderr}`);
  const raw = spawnSync("sox", ["-t", "wav", "-", "-r", String(RATE), "-c", "1", "-b", "16", "-e", "signed-integer", "-t", "raw", "-"], {
    input: wav.stdout,
    maxBuffer: 64 << 20,
  });
  if (raw.status !== 0) throw new Error(`sox failed: ${raw.stderr}`);
  return new Int16Array(raw.stdout.buffer, raw.stdout.byteOffset, raw.stdout.length / 2);
}

/** Corpus conversations of two speakers first, alternating scam and ordinary calls. */
function conversations(count) {
  const both = (label) => CORPUS.filter((e) => e.label === label && new Set(e.segments.map((s) => s.speaker)).size === 2);
  const [scams, legit] = [both("scam"), both("legit")];
  return Array.from({ length: count }, (_, i) => {
    const list = i % 2 === 0 ? scams : legit;
    return list[Math.floor(i / 2) % list.length];
  });
}

/**
 * Writes `count` stereo recordings of `seconds` each into `dir`: the turns of one conversation
 * one after another on their speaker's channel, cut at `seconds` (silence after the last turn).
 */
export function makeRecordings(dir, count, seconds) {
  const frames = Math.round(seconds * RATE);
  return conversations(count).map((entry, i) => {
    const samples = new Int16Array(frames * 2);
    let at = Math.round(0.5 * RATE);
    let spoken = 0;
    for (const turn of entry.segments) {
      if (at >= frames) break;
      const voice = speak(turn.text);
      const channel = turn.speaker === "caller" ? 0 : 1;
      const n = Math.min(voice.length, frames - at);
      for (let k = 0; k < n; k++) samples[(at + k) * 2 + channel] = voice[k];
      spoken += n;
      at += voice.length + Math.round(GAP_SECONDS * RATE);
    }
    const header = wavHeader({ sampleRate: RATE, channels: 2, dataBytes: samples.byteLength });
    const path = join(dir, `call-${String(i).padStart(3, "0")}.wav`);
    writeFileSync(path, Buffer.concat([header, new Uint8Array(samples.buffer)]));
    return { path, id: entry.id, label: entry.label, seconds, speechSeconds: spoken / RATE, facts: factsOf(entry, seconds) };
  });
}

function factsOf(entry, seconds) {
  const billsec = Math.round(seconds);
  return {
    ani: "+14155550123",
    dialed: "+12125550188",
    destCountry: "US",
    billsec,
    durationSec: billsec + 4,
    answered: true,
    hangupBy: "caller",
    dtmf: [],
    ...entry.call,
  };
}

/** Starts the transcriber (node transcriber/server.ts) on `port`; resolves when /health answers, or to the reason it cannot. */
export async function startTranscriber({ port, concurrency, verbose }) {
  const child = spawn(process.execPath, [join(root, "transcriber/server.ts")], {
    cwd: root,
    env: { ...process.env, TRANSCRIBER_PORT: String(port), TRANSCRIBER_CONCURRENCY: String(concurrency) },
    stdio: ["ignore", verbose ? "inherit" : "ignore", "pipe"],
  });
  let stderr = "";
  child.stderr.on("data", (chunk) => {
    stderr += chunk;
    if (verbose) process.stderr.write(chunk);
  });
  const stop = () =>
    new Promise((resolve) => {
      if (child.exitCode !== null || child.signalCode !== null) return resolve();
      child.once("exit", resolve);
      child.kill("SIGTERM");
    });
  const base = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 60_000;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) return { error: stderr.trim() || `exited with ${child.exitCode}`, stop };
    const health = await fetch(`${base}/health`).then(
      (r) => (r.ok ? r.json() : null),
      () => null,
    );
    if (health) return { base, health, stop };
    await new Promise((r) => setTimeout(r, 250));
  }
  await stop();
  return { error: "did not answer /health within 60 s", stop };
}

/** Reads every file, again and again for at least minSeconds: how many calls were read, in how many seconds. */
export function timeReads(recordings, minSeconds = 1) {
  let calls = 0;
  let bytes = 0;
  const started = performance.now();
  do {
    for (const r of recordings) bytes += readFileSync(r.path).length;
    calls += recordings.length;
  } while (performance.now() - started < minSeconds * 1000);
  return { calls, seconds: (performance.now() - started) / 1000, bytes };
}

/** Each recording through read, transcription and analysis, one call after another; seconds per stage. */
export async function timePipeline(recordings, transcriberBase) {
  const transcriber = new OpenAiCompatibleTranscriber({ baseUrl: `${transcriberBase}/v1`, model: "pocketsphinx-en-us" });
  const analyser = new EmbeddedAnalyser();
  const calls = [];
  for (const r of recordings) {
    const t0 = performance.now();
    const audio = parseWav(readFileSync(r.path));
    const t1 = performance.now();
    const transcript = await transcribeRecording(transcriber, audio, { caller: 0, callee: 1 });
    const t2 = performance.now();
    const { verdict } = await analyser.analyse({
      text: transcript.text,
      segments: transcript.segments,
      language: transcript.language,
      call: r.facts,
    });
    const t3 = performance.now();
    calls.push({
      ...r,
      transcript,
      verdict,
      read: (t1 - t0) / 1000,
      transcribe: (t2 - t1) / 1000,
      analyse: (t3 - t2) / 1000,
      total: (t3 - t0) / 1000,
    });
  }
  return calls;
}

/** The analyser alone over the given inputs, repeated for at least minSeconds; calls and seconds. */
export async function timeAnalysis(inputs, minSeconds = 2) {
  const analyser = new EmbeddedAnalyser();
  let calls = 0;
  const started = performance.now();
  do {
    for (const input of inputs) await analyser.analyse(input);
    calls += inputs.length;
  } while (performance.now() - started < minSeconds * 1000);
  return { calls, seconds: (performance.now() - started) / 1000 };
}

/** The corpus conversations' own text as the analyser's input (when there is no transcriber to hear the recordings). */
export function writtenInputs(recordings) {
  return recordings.map((r) => {
    const entry = CORPUS.find((e) => e.id === r.id);
    let t = 0;
    const segments = entry.segments.map(({ speaker, text }) => {
      const start = t;
      t += text.split(/\s+/).length / 2.5 + GAP_SECONDS;
      return { speaker, start, end: t - GAP_SECONDS, text };
    });
    return {
      text: segments.map((s) => `${s.speaker === "caller" ? "Caller" : "Callee"}: ${s.text}`).join("\n"),
      segments,
      language: null,
      call: r.facts,
    };
  });
}
