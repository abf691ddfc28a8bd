// What the call page's parts share: the call's type, which statuses mean the call is up, the
// query keys under ["call", id] and the small helpers the sections use.
import type { Schemas } from "../../api/client.ts";
import { ApiError } from "../../api/errors.ts";

export type CallDetail = Schemas["CallDetail"];

/** A call that is up (the page polls it every two seconds and links to its live view). */
export const isUp = (call: Pick<CallDetail, "status">) => call.status === "ringing" || call.status === "active";

/** The analysis statuses that are still moving (the page polls until they settle). */
export const isAnalysing = (call: Pick<CallDetail, "analysis_status">) =>
  call.analysis_status === "queued" || call.analysis_status === "running";

export const callKey = (id: string) => ["call", id] as const;
export const transcriptKey = (id: string, transcriptId: string | null | undefined) =>
  ["call", id, "transcript", transcriptId ?? null] as const;
export const sipLogKey = (id: string) => ["call", id, "sip-log"] as const;
export const sharesKey = (id: string) => ["call", id, "shares"] as const;

/** A player's clock: m:ss, counting whole seconds down (0:03 until the fourth second starts). */
export function clock(seconds: number | null | undefined): string {
  if (seconds === null || seconds === undefined || !Number.isFinite(seconds)) return "0:00";
  const s = Math.max(0, Math.floor(seconds));
  return `${Math.floor(s / 60)}:${String(s % 60).padStart(2, "0")}`;
}

/** The API's refusal with the wait a 429 asks for spelled out ("Too many exports: try again in 40 s"). */
export function withRetryAfter(error: unknown): unknown {
  if (error instanceof ApiError && error.status === 429 && error.retryAfter) {
    return new ApiError(error.status, `${error.message}: try again in ${error.retryAfter} s`, error.fields, error.retryAfter);
  }
  return error;
}

/** Copies a text to the clipboard, quietly when the browser refuses. */
export const copy = (text: string) => void navigator.clipboard?.writeText(text).catch(() => undefined);
