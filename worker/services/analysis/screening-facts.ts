// A call's screening (the identity columns and the screening result admission stored, schema/screening.ts)
// as the analyser reads it. A call screened by nothing has none, so its verdict is what it always was.
import type { calls } from "../../../schema/calls.ts";
import { ScreeningResult } from "../../../schema/screening.ts";
import type { ScreeningFacts } from "../../providers/analysis/screening.ts";

type CallRow = typeof calls.$inferSelect;

export function screeningFactsOfCall(
  call: Pick<CallRow, "identityStatus" | "identityReason" | "attestation" | "screening">,
): ScreeningFacts | null {
  // A result that does not parse (written by an older ledger) still gives its identity columns.
  const parsed = call.screening ? ScreeningResult.safeParse(call.screening) : null;
  const result = parsed?.success ? parsed.data : null;
  if (!call.identityStatus && !result) return null;
  return {
    identityStatus: call.identityStatus ?? result?.identity?.status ?? null,
    identityReason: call.identityReason ?? result?.identity?.reason ?? null,
    attestation: call.attestation ?? result?.identity?.attestation ?? null,
    verstat: result?.identity?.verstat ?? null,
    flags: (result?.flags ?? []).filter((f) => f.action !== "off").map((f) => ({ rule: f.rule, detail: f.detail })),
  };
}
