// The ranges SIP nodes pre-filter sources with, so a stranger's INVITE costs no round trip.
// Nodes poll with the version they hold; an unchanged version answers without the ranges. Each
// range names its account, so the node asks that account's ledger alone at admission.
//
// Only entries that admit calls (admitsCalls) are ranges: an unproven wide claim, or one made over
// another account's claim, does not open the node's stranger filter. Entries that need proof to
// admit calls (awaitsProof) come as `proofs`, each with its code, which the node puts in its
// answer to an OPTIONS from inside.
import { ne } from "drizzle-orm";
import type { WhitelistSnapshot } from "../../../schema/node-api.ts";
import { whitelistIps } from "../../../schema/network.ts";
import type { Services } from "../context.ts";
import { admitsCalls, awaitsProof } from "../trunk/whitelist-admission.ts";
import { proofCode } from "../trunk/whitelist-proof.ts";

export async function whitelistSnapshot({ registry, db, config }: Services, since: number): Promise<WhitelistSnapshot> {
  const version = await registry.version();
  if (since === version) return { version };
  const rows = await db.select().from(whitelistIps).where(ne(whitelistIps.standing, "displaced"));
  const ranges = new Map<string, { start: string; end: string; customer_id: string }>();
  for (const row of rows.filter(admitsCalls)) {
    ranges.set(`${row.rangeStart}-${row.rangeEnd}-${row.customerId}`, {
      start: row.rangeStart,
      end: row.rangeEnd,
      customer_id: row.customerId,
    });
  }
  const proofs = await Promise.all(
    rows
      .filter(awaitsProof)
      .map(async (row) => ({ start: row.rangeStart, end: row.rangeEnd, code: await proofCode(config, row.id, row.proofNonce) })),
  );
  return { version, ranges: [...ranges.values()], proofs };
}
