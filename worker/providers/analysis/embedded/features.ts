// What the learned model reads of a call: the cue families heard and how they combine, the rule
// signals' families, the shape of the speech, and the words themselves as hashed unigrams and
// bigrams. The same function feeds training (scripts/analyser/train.ts) and the Worker, so the
// model sees calls exactly as it was trained to.
import { CUE_FAMILIES, type CueFamily, type CueHit, cueHits, normaliseForCues } from "./cues.ts";
import type { Evidence, Family, Sentence, Speaker } from "./types.ts";

/** Hashed word features live in [0, NGRAM_BUCKETS); named features follow. */
export const NGRAM_BUCKETS = 1 << 15;
/** Words past this many are not hashed: a long call's opening says what it is, and CPU stays bounded. */
const MAX_HASHED_WORDS = 1500;

const GROUPS = {
  impersonation: CUE_FAMILIES.filter((f) => f.startsWith("imp_")),
  ask: ["ask_gift_card", "ask_wire", "ask_crypto", "ask_courier", "ask_remote", "ask_code", "ask_identity", "ask_payment"],
  action: ["ask_press", "ask_callback"],
  pressure: CUE_FAMILIES.filter((f) => f.startsWith("pressure_")),
  offer: CUE_FAMILIES.filter((f) => f.startsWith("offer_")),
  robocall: ["robo_message", "robo_opt_out", "robo_transfer"],
} satisfies Record<string, CueFamily[]>;
type Group = keyof typeof GROUPS;

/** Pairs of groups whose meeting is what a scam is: a claimed authority that asks, pressure that asks… */
const PAIRS: [Group, Group][] = [
  ["impersonation", "ask"],
  ["impersonation", "pressure"],
  ["impersonation", "action"],
  ["pressure", "ask"],
  ["pressure", "action"],
  ["offer", "ask"],
  ["offer", "action"],
  ["robocall", "action"],
  ["robocall", "impersonation"],
  ["robocall", "offer"],
  ["robocall", "pressure"],
];

const RULE_FAMILIES: Family[] = [
  "authority",
  "reference",
  "tech_alarm",
  "account_alarm",
  "threat",
  "urgency",
  "secrecy",
  "payment",
  "fee",
  "gift_card",
  "crypto",
  "wire",
  "remote",
  "otp",
  "credential",
  "verification",
  "robocall",
  "robo_topic",
  "refund",
  "investment",
  "prize",
  "delivery",
  "family",
  "mitigation",
];

/** The named features, in the order of their indices after the hashed buckets. */
export const NAMED_FEATURES: string[] = [
  ...CUE_FAMILIES.map((f) => `cue:${f}`),
  ...CUE_FAMILIES.filter((f) => !f.startsWith("callee_")).map((f) => `callee_said:${f}`),
  ...Object.keys(GROUPS).map((g) => `group:${g}`),
  "groups:2",
  "groups:3",
  ...PAIRS.map(([a, b]) => `pair:${a}+${b}`),
  ...RULE_FAMILIES.map((f) => `rule:${f}`),
  "shape:one_sided",
  "shape:short",
];
const NAMED_INDEX = new Map(NAMED_FEATURES.map((name, i) => [name, NGRAM_BUCKETS + i]));
export const FEATURE_COUNT = NGRAM_BUCKETS + NAMED_FEATURES.length;

/** A cue heard in a sentence: the sentence is what a red flag quotes. */
export type SentenceCue = CueHit & { sentence: Sentence };

export type SparseVector = { indices: number[]; values: number[] };

export type CallFeatures = {
  vector: SparseVector;
  /** Every cue family's first hearing on the caller's (or an unnamed) side, then the callee's, in call order. */
  cues: SentenceCue[];
  families: Set<CueFamily>;
  /** Both sides spoke (speakers marked, the callee more than a few words): not a recorded message. */
  conversation: boolean;
};

export type SpeechShapeFacts = { callerWords: number; calleeWords: number; marked: boolean };

/** FNV-1a, 32 bits: stable across runtimes, so training and the Worker hash alike. */
function hash(text: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return h >>> 0;
}

/** A word pair's hash from its words' hashes (murmur3's finaliser over a mix of the two). */
function pairHash(a: number, b: number): number {
  let h = Math.imul(a, 0x9e3779b1) ^ b;
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return h >>> 0;
}

/** Numbers of any length are one token, so no campaign's phone number or amount is learned. */
const NUMBER_TOKEN = hash("#");

function ngramBuckets(normalised: string[]): Set<number> {
  const buckets = new Set<number>();
  let seen = 0;
  for (const text of normalised) {
    let previous = -1;
    for (const word of text.split(" ")) {
      if (!word) continue;
      if (seen++ >= MAX_HASHED_WORDS) return buckets;
      const h = /\d/.test(word) ? NUMBER_TOKEN : hash(word);
      buckets.add(h % NGRAM_BUCKETS);
      if (previous >= 0) buckets.add(pairHash(previous, h) % NGRAM_BUCKETS);
      previous = h;
    }
  }
  return buckets;
}

function sentenceCues(sentences: Sentence[], normalised: string[]): SentenceCue[] {
  const cues: SentenceCue[] = [];
  sentences.forEach((sentence, i) => {
    for (const hit of cueHits(normalised[i]!)) cues.push({ ...hit, sentence });
  });
  return cues;
}

const isCallee = (speaker: Speaker) => speaker === "callee";

export function callFeatures(sentences: Sentence[], evidence: Evidence[], shape: SpeechShapeFacts): CallFeatures {
  const normalised = sentences.map((s) => normaliseForCues(s.text));
  const all = sentenceCues(sentences, normalised);
  const named = new Map<string, number>();
  const families = new Set<CueFamily>();
  for (const cue of all) {
    const calleeOnly = isCallee(cue.sentence.speaker) && !cue.family.startsWith("callee_");
    if (calleeOnly) named.set(`callee_said:${cue.family}`, 1);
    else {
      named.set(`cue:${cue.family}`, 1);
      families.add(cue.family);
    }
  }
  const groups = (Object.keys(GROUPS) as Group[]).filter((g) => (GROUPS[g] as CueFamily[]).some((f) => families.has(f)));
  for (const g of groups) named.set(`group:${g}`, 1);
  const core = groups.filter((g) => g !== "robocall").length;
  if (core >= 2) named.set("groups:2", 1);
  if (core >= 3) named.set("groups:3", 1);
  for (const [a, b] of PAIRS) if (groups.includes(a) && groups.includes(b)) named.set(`pair:${a}+${b}`, 1);

  const rulePoints = new Map<Family, number>();
  for (const e of evidence) if (e.points > 0) rulePoints.set(e.family, Math.max(rulePoints.get(e.family) ?? 0, e.points));
  for (const e of evidence) if (e.points < 0) rulePoints.set("mitigation", Math.max(rulePoints.get("mitigation") ?? 0, -e.points));
  for (const f of RULE_FAMILIES) {
    const points = rulePoints.get(f);
    if (points) named.set(`rule:${f}`, Math.min(1, points / 30));
  }

  if (shape.marked && shape.callerWords >= 15 && shape.calleeWords <= 3) named.set("shape:one_sided", 1);
  if (shape.callerWords + shape.calleeWords < 40) named.set("shape:short", 1);

  const vector = toVector(ngramBuckets(normalised), named);
  // A call's cues in the order they were said, the caller's before the callee's echo of them.
  const cues = firstHearings(all);
  const conversation = shape.marked && shape.calleeWords > 15;
  return { vector, cues, families, conversation };
}

function toVector(buckets: Set<number>, named: Map<string, number>): SparseVector {
  // The words' block is scaled to unit length, so a long call does not outvote its cues by length alone.
  const value = 1 / (Math.sqrt(buckets.size) || 1);
  const indices = [...buckets];
  const values = indices.map(() => value);
  for (const [name, v] of named) {
    indices.push(NAMED_INDEX.get(name)!);
    values.push(v);
  }
  return { indices, values };
}

function firstHearings(all: SentenceCue[]): SentenceCue[] {
  const seen = new Set<string>();
  const out: SentenceCue[] = [];
  for (const cue of all) {
    const key = `${cue.family}:${isCallee(cue.sentence.speaker)}`;
    if (seen.has(key)) continue;
    seen.add(key);
    out.push(cue);
  }
  return out.sort((a, b) => a.sentence.order - b.sentence.order || a.index - b.index);
}
