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

/** A rule's conditions on the screening (null or empty: none). */
export type ScreeningConditions = { identityStatuses: string[] | null; screeningRules: string[] | null };

/**
 * Whether the call's screening meets the conditions: its identity status is one listed, and one of
 * the listed rules flagged it (a rule set to off flagged nothing). A call never screened meets none.
 */
export function meetsScreeningConditions(conditions: ScreeningConditions, call: CallScreening | undefined): boolean {
  const statuses = conditions.identityStatuses ?? [];
  const rules = conditions.screeningRules ?? [];
  if (statuses.length && !(call?.identity_status && statuses.includes(call.identity_status))) return false;
  if (rules.length && !call?.screening?.flags.some((f) => f.action !== "off" && rules.includes(f.rule))) return false;
  return true;
}

/** Whether screening found anything a screening alert could be about: a flag, or a caller ID not verified. */
export const screeningFoundSomething = (call: CallScreening) =>
  (call.screening?.flags.some((f) => f.action !== "off") ?? false) ||
  call.identity_status === "failed" ||
  call.identity_status === "absent";
