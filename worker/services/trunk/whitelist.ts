// The trunk whitelist: source addresses admitted for an account. Ownership of address space
// across accounts is decided by the TrunkRegistry Durable Object (one global instance, one call
// at a time), so two accounts can never both hold overlapping ranges; D1 keeps the entries
// themselves. Order of work on create: claim in the registry, then insert the row, releasing the
// claim if the insert fails; on delete: release, then delete the row.
//
// Proof of control (issue 20, finding 4; docs/decisions/trunk-and-admission.md#proof-of-control-of-whitelisted-ranges): an entry /24 (IPv6 /48)
// or narrower admits calls as soon as it is made, as the spec's onboarding has it, unless another
// account's claim overlapped it first; a wider one, or one made over another account's unproven
// claim, admits calls once the account proves control (the code of our OPTIONS answer, entered
// back: verifyIpEntry) or an administrator approves it. A proven claim displaces the other
// accounts' unproven overlapping entries, whose owners are told by mail. Whether an entry admits
// calls is decided in one place (./whitelist-admission.ts).
import { and, count, eq, inArray, isNull } from "drizzle-orm";
import { customers } from "../../../schema/identity.ts";
import { whitelistIps } from "../../../schema/network.ts";
import { parseCidr } from "../../../schema/cidr.ts";
import { isUniqueViolation } from "../../lib/db.ts";
import { describeError } from "../../lib/errors.ts";
import { newId } from "../../lib/ids.ts";
import { nowIso } from "../../lib/time.ts";
import { CIDR_IMMUTABLE, MIN_PREFIX, type CreateIpEntry, type UpdateIpEntry } from "../../resources/whitelist.ts";
import { syncAdmissionState } from "./admission-state.ts";
import type { Services } from "../context.ts";
import { requireOwnDestination } from "./destinations.ts";
import { Conflict, Forbidden, InvalidField, NotFound, TooManyRequests, Unavailable } from "../errors.ts";
import { owned, ownedRow, ownedRowsNewestFirst } from "../owned.ts";
import { sessionRole, type Principal } from "../identity/principal.ts";
import { newProofNonce, PROOF_HEADER, proofMatches } from "./whitelist-proof.ts";
import { ADMITS_AT_ONCE, admitsCalls } from "./whitelist-admission.ts";

export const OVERLAP = "CIDR overlaps a range registered to another account";
export const ENTRY_EXISTS = "Entry already exists";
export const WHITELIST_BUSY = "Whitelist busy, retry";

export const MAX_ENTRIES_REACHED = "Maximum number of IP entries reached";
export const PROVEN_ELSEWHERE = "Another account has proven control of an overlapping range";

/** Verification attempts per entry per hour (the code has 80 bits; this only keeps guessing pointless). */
const VERIFY_ATTEMPTS_PER_HOUR = 10;

type IpRow = typeof whitelistIps.$inferSelect;

/** Why an entry admits no calls (null when it does), in words the portal can show. */
function pendingReason(row: IpRow): string | null {
  if (admitsCalls(row)) return null;
  if (!row.enabled) return "disabled";
  if (row.standing === "displaced") return "displaced: another account proved control of an overlapping range";
  if (row.standing === "second") return "overlaps another account's unproven claim: verify control to take it over";
  return `wider than /${row.ipVersion === 6 ? ADMITS_AT_ONCE.v6 : ADMITS_AT_ONCE.v4}: verify control or ask for approval`;
}

const VERIFICATION = { none: "unverified", proven: "verified", approved: "approved" } as const;

const ipOut = (row: IpRow) => ({
  id: row.id,
  cidr: row.cidr,
  label: row.label,
  dial_prefix: row.dialPrefix,
  destination_id: row.destinationId,
  enabled: row.enabled,
  created_at: row.createdAt,
  admits_calls: admitsCalls(row),
  pending_reason: pendingReason(row),
  verification: VERIFICATION[row.proof as keyof typeof VERIFICATION] ?? "unverified",
  verified_at: row.provenAt,
});

/** Counts one whitelist write of the account; 429 past WHITELIST_WRITES_PER_MINUTE (30 in production). */
async function countWrite(s: Services, customerId: string): Promise<void> {
  const verdict = await s.limiter(`whitelist-writes:${customerId}`).hit(s.config.WHITELIST_WRITES_PER_MINUTE, 60);
  if (!verdict.allowed) throw new TooManyRequests("too_many_whitelist_changes", verdict.retryAfterSec);
}

/** An empty or blank label is no label. */
const labelOf = (label: string | null | undefined) => (label ? label : null);

/**
 * Waits for a registry call at most the configured time; a timeout or a failure of the call
 * becomes Unavailable("Whitelist busy, retry"). The call itself is not cancelled: callers undo
 * what it may still do.
 */
async function withinDeadline<T>(s: Services, call: () => Promise<T>): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Unavailable(WHITELIST_BUSY)), s.registryTimeoutMs);
  });
  try {
    return await Promise.race([
      Promise.resolve()
        .then(call)
        .catch((err: unknown) => {
          console.error("trunk registry call failed", describeError(err));
          throw new Unavailable(WHITELIST_BUSY);
        }),
      deadline,
    ]);
  } finally {
    clearTimeout(timer);
  }
}

export async function listIpEntries({ db }: Services, principal: Principal) {
  const rows = await ownedRowsNewestFirst(db, whitelistIps, principal.customer.id);
  return rows.map(ipOut);
}

const findEntry = ({ db }: Services, customerId: string, ipId: string) => ownedRow(db, whitelistIps, customerId, ipId, "IP entry");

export async function createIpEntry(s: Services, principal: Principal, input: CreateIpEntry) {
  const { db, registry } = s;
  const customerId = principal.customer.id;
  const range = parseCidr(input.cidr, MIN_PREFIX);
  if ("problem" in range) throw new InvalidField("cidr", range.problem);
  await countWrite(s, customerId);
  const held = await db.select({ n: count() }).from(whitelistIps).where(eq(whitelistIps.customerId, customerId)).get();
  // WHITELIST_MAX_ENTRIES (100 in production): far above what a carrier's SBCs and sub-customers need.
  if ((held?.n ?? 0) >= s.config.WHITELIST_MAX_ENTRIES) throw new Conflict(MAX_ENTRIES_REACHED);
  const dialPrefix = input.dial_prefix ?? null;
  const destinationId = input.destination_id ?? null;
  if (destinationId) await requireOwnDestination(s, customerId, destinationId);

  // The unique indexes decide in the end; asking first spares the registry a claim and release.
  const duplicate = await db
    .select({ id: whitelistIps.id })
    .from(whitelistIps)
    .where(
      and(
        eq(whitelistIps.customerId, customerId),
        eq(whitelistIps.cidr, range.canonical),
        dialPrefix === null ? isNull(whitelistIps.dialPrefix) : eq(whitelistIps.dialPrefix, dialPrefix),
      ),
    )
    .get();
  if (duplicate) throw new Conflict(ENTRY_EXISTS);

  const now = nowIso();
  const row: IpRow = {
    id: newId(),
    customerId,
    cidr: range.canonical,
    ipVersion: range.version,
    rangeStart: range.start,
    rangeEnd: range.end,
    label: labelOf(input.label),
    dialPrefix,
    destinationId,
    enabled: input.enabled,
    proof: "none",
    proofNonce: newProofNonce(),
    provenAt: null,
    standing: "first",
    createdAt: now,
    updatedAt: now,
  };

  let claimed;
  try {
    claimed = await withinDeadline(s, () =>
      registry.claim({ entryId: row.id, customerId, start: row.rangeStart, end: row.rangeEnd, contest: input.contest === true }),
    );
  } catch (err) {
    // The claim may still land after we stopped waiting: take it back behind it.
    releaseLater(s, row.id);
    throw err;
  }
  if (!claimed.ok) {
    if (claimed.reason === "overlap") throw new Conflict(OVERLAP);
    throw new Error(`trunk registry refused the range of ${range.canonical}: ${claimed.reason}`);
  }
  // Over another account's unproven claim: kept, admitting nothing until this account proves control.
  if (claimed.contested) row.standing = "second";

  try {
    await db.insert(whitelistIps).values(row);
  } catch (err) {
    await releaseQuietly(s, row.id);
    if (isUniqueViolation(err)) throw new Conflict(ENTRY_EXISTS);
    throw err;
  }
  await syncAdmissionState(s, principal.customer.id);
  return ipOut(row);
}

/** Label, dial prefix, destination and enabled change in place; the range never does. */
export async function updateIpEntry(s: Services, principal: Principal, ipId: string, input: UpdateIpEntry) {
  const { db, registry } = s;
  const customerId = principal.customer.id;
  if (input.cidr !== undefined) throw new InvalidField("cidr", CIDR_IMMUTABLE);
  const row = await findEntry(s, customerId, ipId);
  await countWrite(s, customerId);
  if (input.destination_id) await requireOwnDestination(s, customerId, input.destination_id);

  const changes: Partial<IpRow> = { updatedAt: nowIso() };
  if (input.label !== undefined) changes.label = labelOf(input.label);
  if (input.dial_prefix !== undefined) changes.dialPrefix = input.dial_prefix;
  if (input.destination_id !== undefined) changes.destinationId = input.destination_id;
  if (input.enabled !== undefined) changes.enabled = input.enabled;
  try {
    await db
      .update(whitelistIps)
      .set(changes)
      .where(owned(whitelistIps, customerId, row.id));
  } catch (err) {
    if (isUniqueViolation(err)) throw new Conflict(ENTRY_EXISTS);
    throw err;
  }
  // Nodes learn of the change by the new version. If the registry cannot be reached, the change
  // is stored but unannounced: 503 asks for a retry, and the same PATCH again is harmless.
  await withinDeadline(s, () => registry.touch());
  await syncAdmissionState(s, principal.customer.id);
  return ipOut({ ...row, ...changes });
}

export async function deleteIpEntry(s: Services, principal: Principal, ipId: string): Promise<void> {
  const customerId = principal.customer.id;
  const row = await findEntry(s, customerId, ipId);
  await countWrite(s, customerId);
  // Release first: if the registry cannot be reached nothing is deleted and a retry finishes it.
  await withinDeadline(s, () => s.registry.release(row.id));
  await s.db.delete(whitelistIps).where(owned(whitelistIps, customerId, row.id));
  await syncAdmissionState(s, principal.customer.id);
}

/**
 * Proof of control: the code our node's OPTIONS answer carried (header X-Call-Shield-Proof) to an
 * address of the range. A proven entry admits calls whatever its width and displaces the other
 * accounts' unproven overlapping entries; their owners are told by mail.
 */
export async function verifyIpEntry(s: Services, principal: Principal, ipId: string, input: { code: string }) {
  const customerId = principal.customer.id;
  const row = await findEntry(s, customerId, ipId);
  await countWrite(s, customerId);
  if (row.proof !== "none") return ipOut(row);
  const attempts = await s.limiter(`whitelist-verify:${row.id}`).hit(VERIFY_ATTEMPTS_PER_HOUR, 3600);
  if (!attempts.allowed) throw new TooManyRequests("too_many_verification_attempts", attempts.retryAfterSec);
  if (!(await proofMatches(s.config, row.id, row.proofNonce, input.code))) {
    throw new InvalidField(
      "code",
      `does not match: send a SIP OPTIONS from an address of ${row.cidr} and copy the ${PROOF_HEADER} of our answer`,
    );
  }
  return ipOut(await establish(s, row, "proven"));
}

/** A platform administrator approves an entry (a wide range of a known carrier) as if proven. */
export async function approveIpEntry(s: Services, admin: Principal, ipId: string) {
  if (sessionRole(admin) !== "admin" || admin.via !== "token") throw new Forbidden("admin_required");
  const row = await s.db.select().from(whitelistIps).where(eq(whitelistIps.id, ipId)).get();
  if (!row) throw new NotFound("IP entry not found");
  if (row.proof !== "none") return ipOut(row);
  return ipOut(await establish(s, row, "approved"));
}

/** Marks the entry proven (or approved) in the registry and D1, displacing other accounts' unproven overlaps. */
async function establish(s: Services, row: IpRow, proof: "proven" | "approved"): Promise<IpRow> {
  const proved = await withinDeadline(s, () => s.registry.prove(row.id));
  if (!proved.ok) {
    if (proved.reason === "proven_elsewhere") throw new Conflict(PROVEN_ELSEWHERE);
    throw new Error(`trunk registry holds no claim for whitelist entry ${row.id}`);
  }
  const now = nowIso();
  const changes = { proof, provenAt: now, updatedAt: now };
  await s.db.update(whitelistIps).set(changes).where(eq(whitelistIps.id, row.id));
  await displace(s, row, proved.displaced);
  await syncAdmissionState(s, row.customerId);
  return { ...row, ...changes };
}

/** The other accounts' entries a proven claim overlaps stop admitting; each owner gets one mail. */
async function displace(s: Services, winner: IpRow, displaced: { entryId: string; customerId: string }[]): Promise<void> {
  if (displaced.length === 0) return;
  const ids = displaced.map((d) => d.entryId);
  const rows = await s.db
    .update(whitelistIps)
    .set({ standing: "displaced", updatedAt: nowIso() })
    .where(and(inArray(whitelistIps.id, ids), eq(whitelistIps.proof, "none")))
    .returning({ customerId: whitelistIps.customerId, cidr: whitelistIps.cidr });
  const byAccount = new Map<string, string[]>();
  for (const r of rows) byAccount.set(r.customerId, [...(byAccount.get(r.customerId) ?? []), r.cidr]);
  for (const [customerId, cidrs] of byAccount) {
    const owner = await s.db.select({ email: customers.email }).from(customers).where(eq(customers.id, customerId)).get();
    if (owner) {
      await s.mail.send({
        to: [owner.email],
        subject: "A whitelisted range no longer admits calls",
        text: [
          `Another account proved that it receives traffic at ${winner.cidr}, which overlaps your whitelist entries:`,
          ...cidrs.map((c) => `  ${c}`),
          "",
          "Calls from these ranges are no longer admitted for your account. If the addresses are yours, delete the",
          "entries, add them again and verify control (a SIP OPTIONS from the range, then the code of our answer).",
        ].join("\n"),
      });
    }
    await syncAdmissionState(s, customerId);
  }
}

async function releaseQuietly(s: Services, entryId: string): Promise<void> {
  try {
    await withinDeadline(s, () => s.registry.release(entryId));
  } catch {
    releaseLater(s, entryId);
  }
}

function releaseLater(s: Services, entryId: string): void {
  s.background(
    Promise.resolve()
      .then(() => s.registry.release(entryId))
      .catch((err: unknown) => console.error(`trunk registry: releasing ${entryId} failed`, describeError(err))),
  );
}
