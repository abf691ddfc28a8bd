// A verdict as every outbound message writes it: the webhook's call.analyzed event and an alert's
// JSON body (and what the e-mail and Slack forms print) carry the same fields under the same names.

/** The verdict's facts a message carries: an analyser's Verdict, or a stored analysis read back. */
export type VerdictFacts = {
  title: string | null;
  probability: number;
  category: string;
  recommendation: string;
  entity: string | null;
  summary: string | null;
  red_flags: string[] | null;
};

export const verdictWire = (v: VerdictFacts) => ({
  title: v.title,
  probability: v.probability,
  category: v.category,
  recommendation: v.recommendation,
  entity: v.entity,
  summary: v.summary,
  red_flags: v.red_flags,
});
