// The embedded analyser against the corpus (test/worker/analysis-corpus/): scam scripts of many
// kinds and ordinary calls that mention the same things. Precision and recall of "scam" are printed
// and must both reach 0.9; a verdict of block or review counts as flagged.
import { describe, expect, it } from "vitest";
import type { Verdict } from "../../../worker/providers/analysis/analyser.ts";
import { EmbeddedAnalyser } from "../../../worker/providers/analysis/embedded.ts";
import { CORPUS, type CorpusEntry, inputOf } from "./corpus/index.ts";

const MIN_PRECISION = 0.9;
const MIN_RECALL = 0.9;

type Row = { entry: CorpusEntry; verdict: Verdict; flagged: boolean };

async function analyseCorpus(): Promise<Row[]> {
  const analyser = new EmbeddedAnalyser();
  const rows: Row[] = [];
  for (const entry of CORPUS) {
    const { verdict } = await analyser.analyse(inputOf(entry));
    rows.push({ entry, verdict, flagged: verdict.recommendation !== "allow" });
  }
  return rows;
}

function confusion(rows: Row[]) {
  const count = (label: string, flagged: boolean) => rows.filter((r) => r.entry.label === label && r.flagged === flagged).length;
  const tp = count("scam", true);
  const fp = count("legit", true);
  const fn = count("scam", false);
  const tn = count("legit", false);
  return { tp, fp, fn, tn, precision: tp / (tp + fp || 1), recall: tp / (tp + fn || 1) };
}

describe("embedded analyser corpus", () => {
  it("holds at least 60 transcripts, half scams (10 or more two-sided), half ordinary calls, with unique ids", () => {
    expect(CORPUS.length).toBeGreaterThanOrEqual(60);
    expect(new Set(CORPUS.map((e) => e.id)).size).toBe(CORPUS.length);
    const scams = CORPUS.filter((e) => e.label === "scam");
    const legit = CORPUS.filter((e) => e.label === "legit");
    expect(scams.length).toBeGreaterThanOrEqual(30);
    expect(legit.length).toBeGreaterThanOrEqual(30);
    const twoSided = scams.filter(
      (e) =>
        e.segments
          .filter((s) => s.speaker === "callee")
          .map((s) => s.text.split(" ").length)
          .reduce((a, b) => a + b, 0) > 4,
    );
    expect(twoSided.length).toBeGreaterThanOrEqual(10);
  });

  it("finds scams with precision and recall of at least 0.9", async () => {
    const rows = await analyseCorpus();
    const m = confusion(rows);
    const misses = rows.filter((r) => r.flagged !== (r.entry.label === "scam"));
    console.log(
      [
        "embedded analyser on the corpus (flagged = block or review)",
        `  transcripts ${rows.length}: ${m.tp + m.fn} scam, ${m.fp + m.tn} legit`,
        "                 flagged  allowed",
        `  scam           ${String(m.tp).padStart(7)}  ${String(m.fn).padStart(7)}`,
        `  legit          ${String(m.fp).padStart(7)}  ${String(m.tn).padStart(7)}`,
        `  precision ${m.precision.toFixed(3)}   recall ${m.recall.toFixed(3)}`,
        ...misses.map(
          (r) => `  wrong: ${r.entry.id} (${r.entry.label}) → ${r.verdict.recommendation} ${r.verdict.probability} ${r.verdict.category}`,
        ),
      ].join("\n"),
    );
    expect(m.precision).toBeGreaterThanOrEqual(MIN_PRECISION);
    expect(m.recall).toBeGreaterThanOrEqual(MIN_RECALL);
  });

  it("names a scam category for flagged scams and calls allowed ordinary calls legitimate", async () => {
    const rows = await analyseCorpus();
    for (const { entry, verdict, flagged } of rows) {
      if (entry.label === "scam" && flagged) expect(["legitimate", "unknown"], entry.id).not.toContain(verdict.category);
      if (entry.label === "legit" && !flagged) expect(verdict.category, entry.id).toBe("legitimate");
    }
  });
});
