// The trunk whitelist: source addresses admitted for an account. Ownership of address space
// across accounts is decided by the TrunkRegistry Durable Object (one global instance, one call
// at a time), so two accounts can never both hold overlapping ranges; D1 keeps the entries
// themselves. Order of work on create: claim in the registry, then insert the row, releasing the
// claim if the insert fails; on delete: release, then delete the row.
import { and, desc, eq, isNull } from "drizzle-orm";
import { whitelistIps } from "../../schema/network.ts";
import { parseCidr } from "../../schema/cidr.ts";
import { isUniqueViolation } from "../lib/db.ts";
import { describeError } from "../lib/errors.ts";
import { newId } from "../lib/ids.ts";
import { nowIso } from "../lib/time.ts";
import { CIDR_IMMUTABLE, MIN_PREFIX, type CreateIpEntry, type UpdateIpEntry } from "../resources/whitelist.ts";
import { syncAdmissionState } from "./admission-state.ts";
import type { Services } from "./context.ts";
import { requireOwnDestination } from "./destinations.ts";
import { Conflict, InvalidField, Unavailable } from "./errors.ts";
import { owned, ownedRow } from "./owned.ts";
import type { Principal } from "./principal.ts";

export const OVERLAP = "CIDR overlaps a range registered to another account";
export const ENTRY_EXISTS = "Entry already exists";
export const WHITELIST_BUSY = "Whitelist busy, retry";

type IpRow = typeof whitelistIps.$inferSelect;

const ipOut = (row: IpRow) => ({
  id: row.id,
  cidr: row.cidr,
  label: row.label,
  dial_prefix: row.dialPrefix,
  destination_id: row.destinationId,
  enabled: row.enabled,
  created_at: row.createdAt,
});

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
  const rows = await db
    .select()
    .from(whitelistIps)
    .where(eq(whitelistIps.customerId, principal.customer.id))
    .orderBy(desc(whitelistIps.createdAt), desc(whitelistIps.id));
  return rows.map(ipOut);
}

const findEntry = ({ db }: Services, customerId: string, ipId: string) => ownedRow(db, whitelistIps, customerId, ipId, "IP entry");

export async function createIpEntry(s: Services, principal: Principal, input: CreateIpEntry) {
  const { db, registry } = s;
  const customerId = principal.customer.id;
  const range = parseCidr(input.cidr, MIN_PREFIX);
  if ("problem" in range) throw new InvalidField("cidr", range.problem);
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
    createdAt: now,
    updatedAt: now,
  };

  let claimed;
  try {
    claimed = await withinDeadline(s, () => registry.claim({ entryId: row.id, customerId, start: row.rangeStart, end: row.rangeEnd }));
  } catch (err) {
    // The claim may still land after we stopped waiting: take it back behind it.
    releaseLater(s, row.id);
    throw err;
  }
  if (!claimed.ok) {
    if (claimed.reason === "overlap") throw new Conflict(OVERLAP);
    throw new Error(`trunk registry refused the range of ${range.canonical}: ${claimed.reason}`);
  }

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
  // Release first: if the registry cannot be reached nothing is deleted and a retry finishes it.
  await withinDeadline(s, () => s.registry.release(row.id));
  await s.db.delete(whitelistIps).where(owned(whitelistIps, customerId, row.id));
  await syncAdmissionState(s, principal.customer.id);
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
