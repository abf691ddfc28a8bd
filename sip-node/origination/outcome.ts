// How a test call ended: the outcome the call decides on, the final progress the Worker's test
// call hears from it, and the end the call reporter is told.
import type { TestCallProgress } from "../../schema/node-api.ts";
import type { HangupBy } from "../calls/call-report.ts";
import { reasonPhrase } from "../sip/causes.ts";
import type { ProgressStep } from "./progress.ts";

type FinalStatus = "done" | "failed" | "cancelled";
type EndedBy = NonNullable<TestCallProgress["ended_by"]>;

/** How a test call ended: its final progress, and the end the call reporter hears. */
export type Outcome = {
  status: FinalStatus;
  /** The call's final SIP status (the far end's answer to the INVITE; 200 once answered). */
  sipCode: number;
  sipReason?: string | null;
  /** The call record's end_reason. */
  reason: string | null;
  hangupBy: HangupBy;
  endedBy: EndedBy;
  error?: string | null;
};

/** A test call that failed on the platform's side (no answer, no media, no admission...). */
export function failure(sipCode: number, reason: string | null): Outcome {
  return { status: "failed", sipCode, reason, hangupBy: "platform", endedBy: "platform", error: reason };
}

/** The last progress of a test call: its status, SIP cause and talk time (to the tenth of a second). */
export function finalProgress(outcome: Outcome, callId: string | null, answeredAtMs: number | null, endedAt: Date): ProgressStep {
  const talkMs = answeredAtMs === null ? null : endedAt.getTime() - answeredAtMs;
  return {
    status: outcome.status,
    call_id: callId,
    answered: answeredAtMs !== null,
    sip_code: outcome.sipCode,
    sip_reason: outcome.sipReason ?? (outcome.sipCode === 200 ? "OK" : reasonPhrase(outcome.sipCode)),
    talk_seconds: talkMs === null ? null : Math.round(talkMs / 100) / 10,
    ended_by: outcome.endedBy,
    error: outcome.error ?? null,
  };
}
