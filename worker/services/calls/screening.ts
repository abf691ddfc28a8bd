// A call's screening as the API shows it (the list, the detail, the inspector): the identity
// columns admission wrote and its screening result (schema/screening.ts). A value the contract
// does not know (a row written by an older ledger) reads as null rather than failing the call.
import type { calls } from "../../../schema/calls.ts";
import { Attestation, IdentityStatus, ScreeningResult } from "../../../schema/screening.ts";

type CallRow = typeof calls.$inferSelect;

const known = <T>(schema: { safeParse(v: unknown): { success: true; data: T } | { success: false } }, value: unknown): T | null => {
  if (value === null || value === undefined) return null;
  const parsed = schema.safeParse(value);
  return parsed.success ? parsed.data : null;
};

export type CallScreening = ReturnType<typeof screeningOut>;

export function screeningOut(row: Pick<CallRow, "attestation" | "identityStatus" | "identityReason" | "screening">) {
  return {
    attestation: known(Attestation, row.attestation),
    identity_status: known(IdentityStatus, row.identityStatus),
    identity_reason: row.identityReason,
    screening: known(ScreeningResult, row.screening),
  };
}
