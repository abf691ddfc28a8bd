// A stereo recording transcribed side by side: each channel on its own, so every segment knows
// its speaker, then merged in time order into one transcript.
import { channelWav, type WavAudio } from "../../../schema/wav.ts";
import type { Segment } from "../../providers/analysis/analyser.ts";
import type { Transcriber } from "../../providers/transcription/transcriber.ts";

export type CallTranscript = { text: string; segments: Segment[]; language: string | null; audioSeconds: number };

export async function transcribeRecording(
  transcriber: Transcriber,
  audio: WavAudio,
  channels: { caller: number; callee: number },
): Promise<CallTranscript> {
  // A mono recording has the caller's side only.
  const speakers = (["caller", "callee"] as const).filter((speaker) => channels[speaker] < audio.channels);
  const sides = await Promise.all(
    speakers.map(async (speaker) => {
      const heard = await transcriber.transcribe({ speaker, wav: channelWav(audio, channels[speaker]) });
      return { heard, segments: heard.segments.map((seg) => ({ speaker, ...seg })) };
    }),
  );
  const segments = sides.flatMap((side) => side.segments).sort((a, b) => a.start - b.start || a.end - b.end);
  return {
    text: segments.map((seg) => `${seg.speaker === "caller" ? "Caller" : "Callee"}: ${seg.text}`).join("\n"),
    segments,
    language: sides.find((side) => side.heard.language)?.heard.language ?? null,
    audioSeconds: audio.samples.length / audio.channels / audio.sampleRate,
  };
}
