// The attestation checks of a carrier call's screening, from what the node read of its STIR/SHAKEN
// (AdmitRequest.identity): a PASSporT that failed verification, an upstream carrier's
// TN-Validation-Failed, and a caller ID claiming the dialled number's country without a verified one.
import type { IdentityFacts, ScreeningFlag, ScreeningSettings } from "../../../schema/screening.ts";
import type { CallNumbers } from "./number-checks.ts";

type Check = (identity: IdentityFacts | null, numbers: CallNumbers) => string | null;

const IDENTITY_CHECKS = {
  identity_failed: (identity) =>
    identity?.status === "failed" ? `the caller ID's PASSporT failed verification (${identity.reason ?? "no reason given"})` : null,
  verstat_failed: (identity) => (identity?.verstat === "TN-Validation-Failed" ? "an upstream carrier reported TN-Validation-Failed" : null),
  // Domestic: the same country calling code (so the whole NANP is one country here). A node that
  // does not read Identity headers sends no facts: its calls count as unverified.
  unverified_domestic: (identity, { caller, dialled }) => {
    if (!caller || !dialled || caller.countryCallingCode !== dialled.countryCallingCode) return null;
    if (identity?.status === "verified") return null;
    return `domestic caller ID ${caller.number} without a verified attestation (${identity?.status ?? "absent"})`;
  },
} as const satisfies Record<string, Check>;

type IdentityRule = keyof typeof IDENTITY_CHECKS;
const IDENTITY_RULES = Object.keys(IDENTITY_CHECKS) as IdentityRule[];

export function identityFlags(settings: ScreeningSettings, identity: IdentityFacts | null, numbers: CallNumbers): ScreeningFlag[] {
  const flags: ScreeningFlag[] = [];
  for (const rule of IDENTITY_RULES) {
    const { action } = settings[rule];
    if (action === "off") continue;
    const detail = IDENTITY_CHECKS[rule](identity, numbers);
    if (detail) flags.push({ rule, detail, action });
  }
  return flags;
}
