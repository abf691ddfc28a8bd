// What a test call plays once answered, from the G.711 µ-law files kept beside this module
// (samples/, written by scripts/synthesize-samples.mjs; nothing is synthesised at call time):
// the announcement, then the speech sample looped for the call's `seconds`; for a verification
// call, "your verification code is" and the six digits, said again until the time is up.
import { readFileSync } from "node:fs";
import type { OriginateCommand } from "../../schema/node-api.ts";

/** µ-law bytes a second (8 kHz, one byte a sample). */
export const BYTES_PER_SECOND = 8000;

const folder = new URL("./samples/", import.meta.url);
const cache = new Map<string, Uint8Array>();

/** One sample file's µ-law bytes (read once). */
export function sample(name: string): Uint8Array {
  let bytes = cache.get(name);
  if (!bytes) {
    bytes = new Uint8Array(readFileSync(new URL(`${name}.ulaw`, folder)));
    cache.set(name, bytes);
  }
  return bytes;
}

/** The texts the samples speak (samples/texts.json), for tests and transcripts. */
export const SAMPLE_TEXTS = JSON.parse(readFileSync(new URL("texts.json", folder), "utf8")) as {
  announcement: string;
  route_test: string;
  scam_sample: string;
  verification_code: string;
  digits: string[];
};

/** The audio of one test call: the announcement, then the speech for `seconds` (µ-law, 8 kHz). */
export function programFor(command: Pick<OriginateCommand, "speech" | "seconds" | "code">): Uint8Array {
  const speech = command.speech === "verification_code" ? verificationSpeech(command.code ?? "") : sample(command.speech);
  const announcement = sample("announcement");
  const program = new Uint8Array(announcement.length + command.seconds * BYTES_PER_SECOND);
  program.set(announcement);
  for (let at = announcement.length; at < program.length; at += speech.length) {
    program.set(speech.subarray(0, Math.min(speech.length, program.length - at)), at);
  }
  return program;
}

/** "Your verification code is" and each digit of `code`, concatenated. */
function verificationSpeech(code: string): Uint8Array {
  const parts = [sample("verification_code"), ...[...code].map((digit) => sample(`digit-${digit}`))];
  const speech = new Uint8Array(parts.reduce((n, part) => n + part.length, 0));
  let at = 0;
  for (const part of parts) {
    speech.set(part, at);
    at += part.length;
  }
  return speech;
}
