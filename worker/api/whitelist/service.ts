// The trunk whitelist: source addresses admitted for an account. Ownership of address space
// across accounts is decided by the TrunkRegistry Durable Object (one global instance, one call
// at a time), so two accounts can never both hold overlapping ranges; D1 keeps the entries
// themselves. Order of work on create: claim in the registry, then insert the row, releasing the
// claim if the insert fails; on delete: release, then delete the row.
import { and, desc, eq, isNull } from "drizzle-orm";
import { destinations, whitelistIps } from "../../../schema/network.ts";
import { parseCidr } from "../../lib/cidr.ts";
import { isUniqueViolation, type Db } from "../../lib/db.ts";
import { conflict, describeError, invalidField, notFound } from "../../lib/errors.ts";
import { newId } from "../../lib/ids.ts";
import { REGISTRY_TIMEOUT_MS, withinDeadline, type Registry } from "../../lib/registry.ts";
import { nowIso } from "../../lib/time.ts";
import { CIDR_IMMUTABLE, MIN_PREFIX, type CreateIpEntry, type UpdateIpEntry } from "./schemas.ts";

export const OVERLAP = "CIDR overlaps a range registered to another account";
export const ENTRY_EXISTS = "Entry already exists";
export const ENTRY_NOT_FOUND = "IP entry not found";
export const DESTINATION_NOT_FOUND = "Destination not found";

export type WhitelistDeps = {
  db: Db;
  registry: Registry;
  /** How long to wait for the registry; REGISTRY_TIMEOUT_MS unless a test says otherwise. */
  registryTimeoutMs?: number;
  /** Keeps clean-up work alive after the response (ExecutionContext.waitUntil). */
  background?: (work: Promise<unknown>) => void;
};

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

/** 404 "Destination not found" unless the destination exists on this account. */
export async function requireOwnDestination(db: Db, customerId: string, destinationId: string): Promise<void> {
  const row = await db
    .select({ id: destinations.id })
    .from(destinations)
    .where(and(eq(destinations.id, destinationId), eq(destinations.customerId, customerId)))
    .get();
  if (!row) throw notFound(DESTINATION_NOT_FOUND);
}

export async function listIpEntries(db: Db, customerId: string) {
  const rows = await db
    .select()
    .from(whitelistIps)
    .where(eq(whitelistIps.customerId, customerId))
    .orderBy(desc(whitelistIps.createdAt), desc(whitelistIps.id));
  return rows.map(ipOut);
}

async function findEntry(db: Db, customerId: string, ipId: string): Promise<IpRow> {
  const row = await db
    .select()
    .from(whitelistIps)
    .where(and(eq(whitelistIps.id, ipId), eq(whitelistIps.customerId, customerId)))
    .get();
  if (!row) throw notFound(ENTRY_NOT_FOUND);
  return row;
}

export async function createIpEntry(deps: WhitelistDeps, customerId: string, input: CreateIpEntry) {
  const { db, registry } = deps;
  const timeoutMs = deps.registryTimeoutMs ?? REGISTRY_TIMEOUT_MS;
  const range = parseCidr(input.cidr, MIN_PREFIX);
  if ("problem" in range) throw invalidField(["body", "cidr"], range.problem);
  const dialPrefix = input.dial_prefix ?? null;
  const destinationId = input.destination_id ?? null;
  if (destinationId) await requireOwnDestination(db, customerId, destinationId);

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
  if (duplicate) throw conflict(ENTRY_EXISTS);

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
    claimed = await withinDeadline(
      () => registry.claim({ entryId: row.id, customerId, start: row.rangeStart, end: row.rangeEnd }),
      timeoutMs,
    );
  } catch (err) {
    // The claim may still land after we stopped waiting: take it back behind it.
    releaseLater(deps, row.id);
    throw err;
  }
  if (!claimed.ok) {
    if (claimed.reason === "overlap") throw conflict(OVERLAP);
    throw new Error(`trunk registry refused the range of ${range.canonical}: ${claimed.reason}`);
  }

  try {
    await db.insert(whitelistIps).values(row);
  } catch (err) {
    await releaseQuietly(deps, row.id, timeoutMs);
    if (isUniqueViolation(err)) throw conflict(ENTRY_EXISTS);
    throw err;
  }
  return ipOut(row);
}

/** Label, dial prefix, destination and enabled change in place; the range never does. */
export async function updateIpEntry(deps: WhitelistDeps, customerId: string, ipId: string, input: UpdateIpEntry) {
  const { db, registry } = deps;
  if (input.cidr !== undefined) throw invalidField(["body", "cidr"], CIDR_IMMUTABLE);
  const row = await findEntry(db, customerId, ipId);
  if (input.destination_id) await requireOwnDestination(db, customerId, input.destination_id);

  const changes: Partial<IpRow> = { updatedAt: nowIso() };
  if (input.label !== undefined) changes.label = labelOf(input.label);
  if (input.dial_prefix !== undefined) changes.dialPrefix = input.dial_prefix;
  if (input.destination_id !== undefined) changes.destinationId = input.destination_id;
  if (input.enabled !== undefined) changes.enabled = input.enabled;
  try {
    await db
      .update(whitelistIps)
      .set(changes)
      .where(and(eq(whitelistIps.id, row.id), eq(whitelistIps.customerId, customerId)));
  } catch (err) {
    if (isUniqueViolation(err)) throw conflict(ENTRY_EXISTS);
    throw err;
  }
  // Nodes learn of the change by the new version. If the registry cannot be reached, the change
  // is stored but unannounced: 503 asks for a retry, and the same PATCH again is harmless.
  await withinDeadline(() => registry.touch(), deps.registryTimeoutMs ?? REGISTRY_TIMEOUT_MS);
  return ipOut({ ...row, ...changes });
}

export async function deleteIpEntry(deps: WhitelistDeps, customerId: string, ipId: string): Promise<void> {
  const { db, registry } = deps;
  const row = await findEntry(db, customerId, ipId);
  // Release first: if the registry cannot be reached nothing is deleted and a retry finishes it.
  await withinDeadline(() => registry.release(row.id), deps.registryTimeoutMs ?? REGISTRY_TIMEOUT_MS);
  await db.delete(whitelistIps).where(and(eq(whitelistIps.id, row.id), eq(whitelistIps.customerId, customerId)));
}

async function releaseQuietly(deps: WhitelistDeps, entryId: string, timeoutMs: number): Promise<void> {
  try {
    await withinDeadline(() => deps.registry.release(entryId), timeoutMs);
  } catch {
    releaseLater(deps, entryId);
  }
}

function releaseLater(deps: WhitelistDeps, entryId: string): void {
  const work = Promise.resolve()
    .then(() => deps.registry.release(entryId))
    .catch((err: unknown) => console.error(`trunk registry: releasing ${entryId} failed`, describeError(err)));
  if (deps.background) deps.background(work);
}
