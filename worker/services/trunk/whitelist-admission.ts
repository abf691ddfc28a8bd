// Whether a whitelist entry admits calls (issue 20, finding 4): the one predicate the snapshot for
// nodes, the admission state and the whitelist's own answers use. An entry /24 (IPv6 /48) or
// narrower admits calls as soon as it is made, unless another account's claim overlapped it first;
// a wider one, or one made over another account's unproven claim, once control is proven or an
// administrator approves it (worker/services/trunk/whitelist.ts).
import type { whitelistIps } from "../../../schema/network.ts";

/** Ranges this narrow or narrower admit calls at once (the spec's onboarding); wider ones after proof or approval. */
export const ADMITS_AT_ONCE = { v4: 24, v6: 48 } as const;

/** What admitsCalls reads of an entry. */
export type AdmissionFacts = Pick<typeof whitelistIps.$inferSelect, "cidr" | "enabled" | "proof" | "standing">;

const narrowEnough = (cidr: string) => {
  const prefix = Number(cidr.split("/")[1]);
  return prefix >= (cidr.includes(":") ? ADMITS_AT_ONCE.v6 : ADMITS_AT_ONCE.v4);
};

/**
 * May calls from this entry's range be admitted now? Enabled, not displaced by another account's
 * proven claim, and either proven (or approved), or narrow enough and first on its range.
 */
export function admitsCalls(entry: AdmissionFacts): boolean {
  if (!entry.enabled || entry.standing === "displaced") return false;
  if (entry.proof !== "none") return true;
  return entry.standing === "first" && narrowEnough(entry.cidr);
}

/**
 * Does the entry need proof of control to admit calls (a wide range, or one over another account's
 * claim)? Those are the ranges whose codes the nodes hand out; a narrow first entry needs none.
 */
export function awaitsProof(entry: AdmissionFacts): boolean {
  return entry.proof === "none" && entry.standing !== "displaced" && !admitsCalls({ ...entry, enabled: true });
}
