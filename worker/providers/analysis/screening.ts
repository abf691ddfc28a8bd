// What screening found before the call was answered (schema/screening.ts), as evidence for every
// tier: the caller ID's verification and the rules that flagged the call, each a red flag in plain
// words, with the points a strong fact adds to the verdict's probability. Screening happens before
// a word is said, so its flags come first.
/** The screening facts the analyser reads: the call's identity columns and its screening result's flags. */
export type ScreeningFacts = {
  /** verified, failed or absent (null: the node read no Identity header at all). */
  identityStatus: string | null;
  identityReason: string | null;
  attestation: string | null;
  verstat: string | null;
  flags: { rule: string; detail: string }[];
};

export type ScreeningFact = { id: string; label: string; detail: string; points: number };

const VELOCITY = new Set(["calls_per_minute", "concurrent_calls", "distinct_numbers_per_hour", "sequential_dialling", "short_call_share"]);

/**
 * Each rule's words and weight. Points move the probability (log-odds of points / 20 when words
 * were heard, the facts' score when none were); a weak sign (a neighbour's exchange, no
 * attestation) is listed but moves nothing: plenty of honest calls show it.
 */
const RULE_FACTS: Record<string, { label: string; points: number }> = {
  invalid_caller_id: { label: "The caller ID is not a valid number", points: 10 },
  caller_id_equals_dialled: { label: "The caller ID matched the number dialled", points: 15 },
  neighbour_spoofing: { label: "The caller ID shares the dialled number's area code and exchange", points: 0 },
  do_not_originate: { label: "The caller ID is on the do-not-originate list", points: 20 },
  unverified_domestic: { label: "A domestic caller ID came without verified attestation", points: 0 },
};

const IDENTITY_FAILED_POINTS = 15;
const VERSTAT_FAILED_POINTS = 10;
const VELOCITY_POINTS = 10;

function identityFacts(s: ScreeningFacts): ScreeningFact[] {
  const out: ScreeningFact[] = [];
  if (s.identityStatus === "failed") {
    const detail = s.identityReason ?? "failed";
    out.push({ id: "identity_failed", label: "The caller ID failed verification", detail, points: IDENTITY_FAILED_POINTS });
  }
  if (s.verstat === "TN-Validation-Failed") {
    const label = "The caller's carrier failed the caller ID's verification";
    out.push({ id: "verstat_failed", label, detail: s.verstat, points: VERSTAT_FAILED_POINTS });
  }
  return out;
}

function flagFact(flag: { rule: string; detail: string }): ScreeningFact {
  const known = RULE_FACTS[flag.rule];
  if (known) return { id: flag.rule, label: known.label, detail: flag.detail, points: known.points };
  if (VELOCITY.has(flag.rule))
    return { id: flag.rule, label: `A velocity rule flagged the caller: ${flag.detail}`, detail: flag.rule, points: VELOCITY_POINTS };
  return { id: flag.rule, label: `A screening rule flagged the call: ${flag.detail}`, detail: flag.rule, points: 0 };
}

/** The call's screening facts, each once (the identity's own facts stand for the rules that flag them). */
export function screeningFactsOf(call: { screening?: ScreeningFacts | null }): ScreeningFact[] {
  const s = call.screening;
  if (!s) return [];
  const facts = identityFacts(s);
  for (const flag of s.flags) {
    const fact = flagFact(flag);
    if (!facts.some((f) => f.id === fact.id)) facts.push(fact);
  }
  return facts;
}

/** A fact as a red flag's words (unnumbered): "The caller ID failed verification (bad_signature)". */
export const screeningLine = (f: ScreeningFact) => `${f.label} (${f.detail})`;

const unnumbered = (line: string) => line.replace(/^\d+\.\s+/, "");

/**
 * The red flags with the screening's in front (before answer comes first), each once, numbered
 * "1. ", "2. "... anew; at most `max`. A line already naming a fact is not repeated.
 */
export function withScreeningFlags(flags: string[] | null, facts: ScreeningFact[], max: number): string[] | null {
  if (!facts.length) return flags;
  const rest = (flags ?? []).map(unnumbered);
  const missing = facts.filter((f) => !rest.some((line) => line.startsWith(f.label)));
  return [...missing.map(screeningLine), ...rest].slice(0, max).map((line, i) => `${i + 1}. ${line}`);
}
