// npm run train:analyser — the embedded analyser's model from the repository's data alone:
// the synthetic dialogues, the real-call development sample and our own extra calls
// (data/analyser/), written to worker/providers/analysis/embedded/model-weights.json.
import { writeFileSync } from "node:fs";
import { modelToFile } from "../../worker/providers/analysis/embedded/model.ts";
import { extraExamples, realDevExamples, syntheticExamples } from "./corpus.ts";
import { rowsOf } from "./dataset.ts";
import { train } from "./learn.ts";

export const WEIGHTS_PATH = new URL("../../worker/providers/analysis/embedded/model-weights.json", import.meta.url).pathname;
export const MODEL_VERSION = "2026-11-27";

export function trainCommittedModel() {
  const examples = [...syntheticExamples(), ...realDevExamples(), ...extraExamples()];
  return modelToFile(train(rowsOf(examples), MODEL_VERSION));
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const file = trainCommittedModel();
  writeFileSync(WEIGHTS_PATH, `${JSON.stringify(file)}\n`);
  const strongest = Object.entries(file.named).sort((a, b) => Math.abs(b[1]) - Math.abs(a[1]));
  console.log(`wrote ${WEIGHTS_PATH} (${JSON.stringify(file).length} bytes); calibration a=${file.calibration.a} b=${file.calibration.b}`);
  console.log("strongest named features:");
  for (const [name, w] of strongest.slice(0, 25)) console.log(`  ${w.toFixed(3).padStart(8)}  ${name}`);
}
