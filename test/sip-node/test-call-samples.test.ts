// The test-call samples kept in the repository (sip-node/origination/samples/, written by
// scripts/synthesize-samples.mjs): what a call plays is built from them alone, and the scam
// sample says what the screening must flag, while the route test says nothing it would.
import { describe, expect, it } from "vitest";
import { EmbeddedAnalyser } from "../../worker/providers/analysis/embedded.ts";
import type { AnalysisInput, Segment } from "../../worker/providers/analysis/analyser.ts";
import { ULAW_TO_PCM } from "../../sip-node/media/g711.ts";
import { BYTES_PER_SECOND, programFor, sample, SAMPLE_TEXTS } from "../../sip-node/origination/samples.ts";

const NAMES = ["announcement", "route_test", "scam_sample", "verification_code", ...SAMPLE_TEXTS.digits.map((_, d) => `digit-${d}`)];

/** Root mean square level of µ-law audio, in linear units. */
const level = (ulaw: Uint8Array) => Math.sqrt(ulaw.reduce((sum, code) => sum + ULAW_TO_PCM[code]! ** 2, 0) / ulaw.length);

/** A call as the pipeline would read it: the platform (caller) speaks `text`, the callee says hello. */
function heard(text: string): AnalysisInput {
  const sentences = text.split(/(?<=[.?!,])\s+/);
  const segments: Segment[] = [
    { speaker: "callee", start: 0, end: 0.5, text: "Hello?" },
    ...sentences.map((text, i) => ({ speaker: "caller" as const, start: 1 + i * 2, end: 2.8 + i * 2, text })),
  ];
  return {
    text: ["Hello?", ...sentences].join(" "),
    segments,
    language: "en",
    call: {
      ani: "18005550100",
      dialed: "14155550123",
      destCountry: "US",
      billsec: 30,
      durationSec: 32,
      answered: true,
      hangupBy: "caller",
      dtmf: [],
    },
  };
}

describe("test-call samples", () => {
  it("are speech at 8 kHz, short enough to keep in the repository", () => {
    for (const name of NAMES) {
      const audio = sample(name);
      expect(audio.length, name).toBeGreaterThan(0.3 * BYTES_PER_SECOND);
      expect(audio.length, name).toBeLessThan(30 * BYTES_PER_SECOND);
      expect(level(audio), name).toBeGreaterThan(500);
    }
    expect(sample("announcement").length).toBeLessThan(5 * BYTES_PER_SECOND);
  });

  it("play the announcement, then the sample looped for `seconds`", () => {
    const announcement = sample("announcement");
    const scam = sample("scam_sample");
    const program = programFor({ speech: "scam_sample", seconds: 30 });
    expect(program.length).toBe(announcement.length + 30 * BYTES_PER_SECOND);
    expect(program.subarray(0, announcement.length)).toEqual(announcement);
    expect(program.subarray(announcement.length, announcement.length + scam.length)).toEqual(scam);
    // Looped: the sample starts again right after itself.
    expect(program.subarray(announcement.length + scam.length, announcement.length + scam.length + 800)).toEqual(scam.subarray(0, 800));
  });

  it("speak a verification code digit by digit, from the digits' files", () => {
    const program = programFor({ speech: "verification_code", seconds: 10, code: "407193" });
    const intro = sample("verification_code");
    let at = sample("announcement").length;
    expect(program.subarray(at, at + intro.length)).toEqual(intro);
    at += intro.length;
    for (const digit of "407193") {
      const spoken = sample(`digit-${digit}`);
      expect(program.subarray(at, at + spoken.length), digit).toEqual(spoken);
      at += spoken.length;
    }
  });

  it("say what the screening flags in the scam sample (block or review) and nothing in the route test (allow)", async () => {
    const analyser = new EmbeddedAnalyser();
    const scam = await analyser.analyse(heard(`${SAMPLE_TEXTS.announcement} ${SAMPLE_TEXTS.scam_sample}`));
    expect(["block", "review"]).toContain(scam.verdict.recommendation);
    const route = await analyser.analyse(heard(`${SAMPLE_TEXTS.announcement} ${SAMPLE_TEXTS.route_test}`));
    expect(route.verdict.recommendation).toBe("allow");
  });
});
