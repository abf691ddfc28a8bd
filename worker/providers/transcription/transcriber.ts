// Speech to text behind one interface. Adapters: the Workers AI binding (Whisper), and any
// OpenAI-compatible /v1/audio/transcriptions URL, which is also how the Worker reaches the offline
// engine that `npm start` runs beside the SIP node (transcriber/). Recordings are stereo, one
// channel per side; each channel is transcribed on its own so segments carry the speaker.
import type { Segment } from "../analysis/analyser.ts";

export type ChannelAudio = {
  speaker: Segment["speaker"];
  /** A mono 16-bit PCM WAV file of that side of the call. */
  wav: Uint8Array;
};

export type ChannelTranscript = {
  text: string;
  /** Times in seconds from the start of the audio. */
  segments: { start: number; end: number; text: string }[];
  language: string | null;
  audioSeconds: number;
};

export type TranscriberInfo = { provider: string; model: string };

export interface Transcriber {
  readonly info: TranscriberInfo;
  transcribe(audio: ChannelAudio): Promise<ChannelTranscript>;
}
