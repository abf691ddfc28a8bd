// The ranges SIP nodes pre-filter sources with, so a stranger's INVITE costs no round trip.
// Nodes poll with the version they hold; an unchanged version answers without the ranges. Each
// range names its account, so the node asks that account's ledger alone at admission.
import { eq } from "drizzle-orm";
import type { WhitelistSnapshot } from "../../schema/node-api.ts";
import { whitelistIps } from "../../schema/network.ts";
import type { Services } from "../services/context.ts";

export async function whitelistSnapshot({ registry, db }: Services, since: number): Promise<WhitelistSnapshot> {
  const version = await registry.version();
  if (since === version) return { version };
  const ranges = await db
    .selectDistinct({ start: whitelistIps.rangeStart, end: whitelistIps.rangeEnd, customer_id: whitelistIps.customerId })
    .from(whitelistIps)
    .where(eq(whitelistIps.enabled, true));
  return { version, ranges };
}
