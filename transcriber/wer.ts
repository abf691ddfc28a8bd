// Word error rate: word-level Levenshtein distance between a reference and a hypothesis, over the
// reference's word count, after both are normalised (lower case, punctuation gone, digits kept).

/** Lower-case words, punctuation stripped (an apostrophe inside a word stays: "don't"). */
export function normaliseWords(text: string): string[] {
  return text
    .toLowerCase()
    .replace(/[^a-z0-9' ]+/g, " ")
    .replace(/(^|\s)'+|'+(?=\s|$)/g, " ")
    .split(/\s+/)
    .filter(Boolean);
}

/** Substitutions + deletions + insertions needed to turn the reference into the hypothesis. */
export function wordErrors(reference: string[], hypothesis: string[]): number {
  let previous = Array.from({ length: hypothesis.length + 1 }, (_, j) => j);
  for (let i = 1; i <= reference.length; i++) {
    const row = [i];
    for (let j = 1; j <= hypothesis.length; j++) {
      const substitution = previous[j - 1]! + (reference[i - 1] === hypothesis[j - 1] ? 0 : 1);
      row.push(Math.min(substitution, previous[j]! + 1, row[j - 1]! + 1));
    }
    previous = row;
  }
  return previous[hypothesis.length]!;
}

/** WER of one pair of texts (1 when the reference is empty but the hypothesis is not). */
export function wordErrorRate(reference: string, hypothesis: string): number {
  const ref = normaliseWords(reference);
  const hyp = normaliseWords(hypothesis);
  if (ref.length === 0) return hyp.length === 0 ? 0 : 1;
  return wordErrors(ref, hyp) / ref.length;
}
