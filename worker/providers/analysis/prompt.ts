// The instructions the LLM analysers work from. A change of wording is a new PROMPT_VERSION, so
// every stored verdict says which prompt produced it.
import type { AnalysisInput } from "./analyser.ts";

export const PROMPT_VERSION = "verdict-2026-11-26";

export const SYSTEM_PROMPT = `You are a telecom fraud analyst. You receive the transcript of one phone call (each line
marked caller or callee, with seconds from the answer), the DTMF digits pressed, and the call's facts.
Decide how likely the call is fraud or abuse of the callee, and answer ONE JSON object with exactly these keys:
title (short headline or null), probability (integer 0-100), category (snake_case, e.g. credit_card_scam,
government_impersonation, tech_support_scam, bank_impersonation, refund_scam, investment_scam, robocall,
telemarketing, wangiri, premium_rate, legitimate, unknown), entity (the organisation the caller claims to be, or null),
caller_identity (who the caller says they are, or null), red_flags (array of short sentences numbered "1. ", "2. "...,
each quoting what was heard, or null), language (BCP 47 code or null), tcpa_comment (whether the US TCPA applies;
"not applicable" for calls outside North America), summary (two sentences or null), recommendation
("block" when probability >= 70, "review" when >= 30, else "allow"), keywords (array of lower-case words or null).
Quote only words that are in the transcript. Innocent calls about banks, payments or codes are legitimate.`;

/** The user message: the call as the analyser sees it, compact and in time order. */
export function callMessage(input: AnalysisInput): string {
  const lines = input.segments.map((s) => `[${s.start.toFixed(1)}s] ${s.speaker}: ${s.text}`);
  const facts = {
    ani: input.call.ani,
    dialed: input.call.dialed,
    dest_country: input.call.destCountry,
    answered: input.call.answered,
    billsec: input.call.billsec,
    hangup_by: input.call.hangupBy,
    dtmf: input.call.dtmf.map((d) => d.digit).join(""),
  };
  return `Call facts: ${JSON.stringify(facts)}\nTranscript:\n${lines.join("\n") || "(no speech)"}`;
}
