// The instructions the LLM analysers work from. A change of wording is a new PROMPT_VERSION, so
// every stored verdict says which prompt produced it. The categories, the cue families and the
// recommendation rule are the embedded analyser's own (categories.ts, embedded/cues.ts,
// embedded/decision.ts), read from there so the tiers cannot drift apart.
import type { AnalysisInput } from "./analyser.ts";
import { CATEGORIES } from "./categories.ts";
import { CUE_FAMILIES, CUES, type CueFamily } from "./embedded/cues.ts";
import { BLOCK_MIN, REVIEW_MIN } from "./embedded/decision.ts";
import { screeningFactsOf, screeningLine } from "./screening.ts";

export const PROMPT_VERSION = "verdict-2026-11-29";

/** The cue families' groups, by the prefix of their keys, in the order embedded/cues.ts lists them. */
const CUE_GROUPS: { prefix: string; title: string }[] = [
  { prefix: "imp_", title: "Who is impersonated" },
  { prefix: "ask_", title: "What is asked" },
  { prefix: "pressure_", title: "The pressure" },
  { prefix: "offer_", title: "The offer" },
  { prefix: "robo_", title: "The robocall's form" },
  { prefix: "callee_", title: 'The callee\'s words, evidence too (e.g. "is this a scam?", "I never ordered that", refusing a code)' },
  { prefix: "genuine_", title: "What genuine callers say (they count against fraud)" },
];

function labelsOf(family: CueFamily): string[] {
  return CUES.filter((c) => c.family === family).map((c) => c.label);
}

function cueSection(): string {
  const grouped = CUE_GROUPS.map(({ prefix, title }) => {
    const lines = CUE_FAMILIES.filter((f) => f.startsWith(prefix)).flatMap((f) => labelsOf(f).map((label) => `  - ${label}`));
    return lines.length ? `- ${title}:\n${lines.join("\n")}` : "";
  });
  // A family added under a new prefix still reaches the prompt.
  const other = CUE_FAMILIES.filter((f) => !CUE_GROUPS.some((g) => f.startsWith(g.prefix))).flatMap((f) =>
    labelsOf(f).map((label) => `  - ${label}`),
  );
  if (other.length) grouped.push(`- Other cues:\n${other.join("\n")}`);
  return grouped.filter(Boolean).join("\n");
}

const categorySection = Object.entries(CATEGORIES)
  .map(([key, description]) => `- ${key}: ${description}`)
  .join("\n");

export const SYSTEM_PROMPT = `You are a telecom fraud analyst. You receive the transcript of one phone call (each line
marked caller or callee, with seconds from the answer; an unmarked transcript when the speakers were not told
apart), the DTMF digits pressed, and the call's facts. Decide how likely the call is fraud or abuse of the callee.

What phone fraud is made of, whoever runs the campaign and whatever it says word for word:
${cueSection()}
A one-sided recorded message that asks for an action (press a key, call a number back) is a strong signal of
a robocall scam. The callee's own words are evidence as much as the caller's. A caller that warns it will never
ask for codes, PINs or payment by phone speaks as genuine callers do. Innocent calls about banks, payments,
appointments or codes are legitimate.
The call's facts may carry "screening": what was found before answer (the caller ID's STIR/SHAKEN verification,
number checks, velocity rules). It is evidence like the words: a caller ID that failed verification, matched the
number dialled or is on the do-not-originate list makes fraud likelier; list each screening fact as a red flag
first, in the words given.

Category: exactly one key from this closed list, nothing else:
${categorySection}
For a call flagged block or review, name who is impersonated first, else what is offered, else what is asked;
an allowed call is legitimate (or telemarketing for a recorded sales pitch); a call with no speech is judged by
its facts (wangiri, premium_rate, unknown).

Recommendation:
- "block" only when probability >= ${BLOCK_MIN} AND the fraud's core was heard: a pretext (someone impersonated,
  or an offer made) together with a demand no genuine caller makes (gift cards, a wire or money transfer,
  crypto, cash for a courier, remote access to a computer, a one-time code, a threat of arrest or legal
  action); or a recorded message that claims an identity or alarms and asks for a key press or a call back.
  Never block a call whose caller warns it never asks for such things.
- "review" when probability >= ${REVIEW_MIN} (and the call is not blocked).
- "allow" otherwise.

Answer ONE JSON object with exactly these keys:
title (short headline or null), probability (integer 0-100), category (a key of the list above),
entity (the organisation the caller impersonates or claims to be, or null), caller_identity (who the caller
says they are, or null), red_flags (array of short strings, each numbered "1. ", "2. "... in the order the
words were said, each naming the cue and quoting the words that fired it, e.g. 1. Asks for payment in gift
cards: "pay the fine today in gift cards"; or null), language (BCP 47 code or null), tcpa_comment (whether
the US TCPA applies; "not applicable" for calls outside North America), summary (one sentence saying why
the call got its recommendation, or null), recommendation ("block", "review" or "allow", by the rule above),
keywords (array of lower-case words or short phrases heard, or null).
Quote only words that are in the transcript.`;

/** The user message: the call as the analyser sees it, compact and in time order. */
export function callMessage(input: AnalysisInput): string {
  const lines = input.segments.map((s) => `[${s.start.toFixed(1)}s] ${s.speaker}: ${s.text}`);
  // Without segments the words are only in the text (speakers not told apart): show it unmarked.
  const transcript = lines.length ? lines.join("\n") : input.text.trim() ? `(unmarked)\n${input.text.trim()}` : "(no speech)";
  const screening = screeningFactsOf(input.call).map(screeningLine);
  const facts = {
    ani: input.call.ani,
    dialed: input.call.dialed,
    dest_country: input.call.destCountry,
    answered: input.call.answered,
    billsec: input.call.billsec,
    hangup_by: input.call.hangupBy,
    dtmf: input.call.dtmf.map((d) => d.digit).join(""),
    // Only when there is some, so a call without screening reads as it always did.
    ...(screening.length ? { screening } : {}),
  };

  return `Call facts: ${JSON.stringify(facts)}\nTranscript:\n${transcript}`;
}
