// API keys for scripts: "csk_" + 32 random bytes (URL-safe base64), shown once, stored as a
// SHA-256 hash with a visible prefix, acting as the user who minted it.
import { and, desc, eq, isNull } from "drizzle-orm";
import { apiKeys } from "../../../schema/identity.ts";
import { randomToken, sha256Hex } from "../../lib/crypto.ts";
import { newId } from "../../lib/ids.ts";
import { nowIso } from "../../lib/time.ts";
import type { Services } from "../context.ts";
import { ownedRow } from "../owned.ts";
import type { Principal } from "./principal.ts";

export const API_KEY_PREFIX = "csk_";
const VISIBLE_CHARS = 6;

type KeyRow = typeof apiKeys.$inferSelect;

const keyOut = (row: KeyRow) => ({
  id: row.id,
  name: row.name,
  prefix: row.prefix,
  last_used_at: row.lastUsedAt,
  revoked_at: row.revokedAt,
  created_at: row.createdAt,
});

export async function listApiKeys({ db }: Services, principal: Principal) {
  const rows = await db.select().from(apiKeys).where(eq(apiKeys.customerId, principal.customer.id)).orderBy(desc(apiKeys.createdAt));
  return rows.map(keyOut);
}

export async function createApiKey({ db }: Services, principal: Principal, name: string) {
  const key = `${API_KEY_PREFIX}${randomToken(32)}`;
  const row: KeyRow = {
    id: newId(),
    customerId: principal.customer.id,
    userId: principal.user.id,
    name,
    prefix: key.slice(0, API_KEY_PREFIX.length + VISIBLE_CHARS),
    keyHash: await sha256Hex(key),
    lastUsedAt: null,
    revokedAt: null,
    createdAt: nowIso(),
  };
  await db.insert(apiKeys).values(row);
  return { ...keyOut(row), key };
}

/** Idempotent for a key already revoked; 404 for a key of another account. */
export async function revokeApiKey({ db }: Services, principal: Principal, keyId: string): Promise<void> {
  const row = await ownedRow(db, apiKeys, principal.customer.id, keyId, "API key");
  await db
    .update(apiKeys)
    .set({ revokedAt: nowIso() })
    .where(and(eq(apiKeys.id, row.id), isNull(apiKeys.revokedAt)));
}
