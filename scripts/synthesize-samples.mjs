// Speaks the test-call samples into the files the SIP node plays (sip-node/origination/samples/):
// each text of texts.json is spoken by espeak-ng, brought to 8 kHz mono by sox, trimmed of its
// silence at both ends and kept as raw G.711 µ-law (8000 bytes a second, no header), so nothing
// is synthesised at call time. Run it again after changing a text: `node scripts/synthesize-samples.mjs`.
// Needs espeak-ng and sox (Debian packages); the files it writes are committed.
import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

const samples = new URL("../sip-node/origination/samples/", import.meta.url).pathname;
const texts = JSON.parse(readFileSync(join(samples, "texts.json"), "utf8"));
const work = mkdtempSync(join(tmpdir(), "samples-"));

/** Silence below 0.5 % of full scale for 50 ms is cut at the start, and (reversed) at the end. */
const TRIM = ["silence", "1", "0.05", "0.5%", "reverse", "silence", "1", "0.05", "0.5%", "reverse"];

function speak(name, text, { pauseMs = 0 } = {}) {
  const spoken = join(work, `${name}.wav`);
  execFileSync("espeak-ng", ["-v", "en-us", "-s", "150", "-w", spoken, text]);
  const out = join(samples, `${name}.ulaw`);
  const pad = pauseMs > 0 ? ["pad", "0", String(pauseMs / 1000)] : [];
  execFileSync("sox", [spoken, "-r", "8000", "-c", "1", "-e", "mu-law", "-t", "raw", out, ...TRIM, ...pad]);
  console.log(`${name}.ulaw  ${(statSync(out).size / 8000).toFixed(2)} s`);
}

try {
  speak("announcement", texts.announcement, { pauseMs: 500 });
  speak("route_test", texts.route_test, { pauseMs: 700 });
  speak("scam_sample", texts.scam_sample, { pauseMs: 700 });
  speak("verification_code", texts.verification_code, { pauseMs: 300 });
  texts.digits.forEach((word, digit) => speak(`digit-${digit}`, word, { pauseMs: 250 }));
} finally {
  rmSync(work, { recursive: true, force: true });
}
