// The analyser's data, read from the repository's copy (data/analyser/corpora/, with its README and
// licences): the synthetic dialogues with speakers, and the real-call development sample without.
// Each example becomes the AnalysisInput the pipeline would hand an analyser.
import { existsSync, readFileSync } from "node:fs";
import type { AnalysisInput } from "../../worker/providers/analysis/analyser.ts";
import { dialogueInput, plainInput, type Turn } from "./dialogue.ts";

export { dialogueInput, plainInput } from "./dialogue.ts";

export const DATA_DIR = new URL("../../data/analyser/", import.meta.url).pathname;

export type Label = "scam" | "benign";

export type Example = {
  id: string;
  /** Which evaluation set it belongs to: synthetic, ftc (real robocalls), youtube (real scam excerpts), spoken-… */
  corpus: string;
  /** The unit no split may cut: a topic of the synthetic set, an FTC letter, a video. */
  group: string;
  topic: string;
  label: Label;
  input: AnalysisInput;
};

const readJsonl = <T>(path: string): T[] =>
  readFileSync(path, "utf8")
    .split("\n")
    .filter((line) => line.trim())
    .map((line) => JSON.parse(line) as T);

type SyntheticRow = { id: string; source: string; label: Label; topic: string; turns: Turn[] };
type RealRow = { id: string; group: string; label: Label; text: string };

export function syntheticExamples(): Example[] {
  return readJsonl<SyntheticRow>(`${DATA_DIR}corpora/scam-calls-training.jsonl`).map((row) => ({
    id: row.id,
    corpus: "synthetic",
    group: `${row.source}:${row.topic}`,
    topic: row.topic,
    label: row.label,
    input: dialogueInput(row.turns),
  }));
}

export function realDevExamples(): Example[] {
  const sets: [string, string][] = [
    ["ftc", "corpora/real-dev/ftc-dev.jsonl"],
    ["youtube", "corpora/real-dev/youtube-dev.jsonl"],
  ];
  return sets.flatMap(([corpus, file]) =>
    readJsonl<RealRow>(`${DATA_DIR}${file}`).map((row) => ({
      id: row.id,
      corpus,
      group: `${corpus}:${row.group}`,
      topic: corpus === "ftc" ? "robocall" : "scam_call",
      label: row.label,
      input: plainInput(row.text),
    })),
  );
}

/** Our own hard negatives and positives (data/analyser/extra/*.jsonl), written for this project. */
export function extraExamples(): Example[] {
  const dir = `${DATA_DIR}extra/`;
  const files = ["benign-tasks.jsonl", "benign-calls.jsonl", "robocalls.jsonl"];
  return files
    .filter((file) => existsSync(dir + file))
    .flatMap((file) =>
      readJsonl<SyntheticRow & { text?: string }>(dir + file).map((row) => ({
        id: row.id,
        corpus: `extra:${file.replace(".jsonl", "")}`,
        group: `extra:${row.topic}`,
        topic: row.topic,
        label: row.label,
        input: row.turns ? dialogueInput(row.turns) : plainInput(row.text ?? ""),
      })),
    );
}

/** Offline transcripts of spoken dev-set calls (transcriber/bench/spoken-dev.ts), when made. */
export function spokenDevExamples(): Example[] {
  const path = `${DATA_DIR}spoken-dev/offline-transcripts.jsonl`;
  if (!existsSync(path)) return [];
  return readJsonl<{ id: string; group: string; label: Label; hypothesis: string }>(path).map((row) => {
    // The same group key as the call's written transcript (realDevExamples), so folds keep them together.
    const corpus = row.id.split(":")[0]!;
    return {
      id: `spoken:${row.id}`,
      corpus: "spoken-offline",
      group: `spoken:${corpus}:${row.group}`,
      topic: corpus === "ftc" ? "robocall" : "scam_call",
      label: row.label,
      input: plainInput(row.hypothesis),
    };
  });
}
