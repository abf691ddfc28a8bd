// Shared shapes of the embedded analyser: signals found in the transcript, evidence from the call's
// facts, and the families the score is built from.
import type { Segment } from "../analyser.ts";

export type Speaker = Segment["speaker"] | "unknown";

/** What a signal says about the call; the score adds one figure per family, not per keyword. */
export type Family =
  | "authority"
  | "reference"
  | "tech_alarm"
  | "account_alarm"
  | "threat"
  | "urgency"
  | "secrecy"
  | "payment"
  | "fee"
  | "gift_card"
  | "crypto"
  | "wire"
  | "remote"
  | "otp"
  | "credential"
  | "verification"
  | "robocall"
  | "robo_topic"
  | "refund"
  | "investment"
  | "prize"
  | "delivery"
  | "family"
  | "mention"
  | "mitigation"
  | "facts";

/** A phrase pattern over lower-cased, apostrophe-normalised sentences. */
export type Signal = {
  id: string;
  family: Family;
  /** Points when the caller says it; the callee's words count for less (see SPEAKER_FACTOR). */
  weight: number;
  /** The red flag's text, an action of the speaker: "Asks for the one-time code". */
  label: string;
  keyword: string | null;
  patterns: RegExp[];
  /** The category this signal points to, if any. */
  hint?: string;
  /** Genuine organisations say this too (an agent verifying a caller): from the callee it counts for little. */
  genuine?: boolean;
  /** A negator just before the match ("we will never ask for your PIN") turns it into a mitigation. */
  negatable?: boolean;
};

/** A sentence as heard, with its lower-cased form for matching. */
export type Sentence = { speaker: Speaker; text: string; lower: string; order: number };

/** One reason the score moved: a signal heard in a sentence, or a fact of the call. */
export type Evidence = {
  id: string;
  family: Family;
  label: string;
  keyword: string | null;
  /** Points after the speaker's factor; negative for mitigations. */
  points: number;
  speaker: Speaker;
  /** The sentence quoted, or null for a fact of the call. */
  quote: string | null;
  /** For facts: what was observed ("answered for 1 s, nothing said"). */
  detail: string | null;
  order: number;
  hint: string | null;
};

export type EntityKind = "bank" | "card" | "tax" | "police" | "government" | "carrier" | "tech" | "delivery" | "utility";

export type EntityClaim = { name: string; kind: EntityKind; named: boolean; speaker: Speaker; order: number; quote: string };
