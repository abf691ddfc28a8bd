// What an AI agent did on an account, in its audit log: one entry per action taken with a
// connector token, labelled with the agent and the person it acts for. Other principals are a
// person acting and are audited where the verbs audit them.
import { auditLog } from "../../../schema/identity.ts";
import { newId } from "../../lib/ids.ts";
import { nowIso } from "../../lib/time.ts";
import type { Services } from "../context.ts";
import { actingLabel, type Principal } from "../identity/principal.ts";

export async function recordAgentAction(s: Services, principal: Principal, action: string, detail: Record<string, unknown>): Promise<void> {
  if (principal.via !== "connector" || !principal.connector) return;
  const { clientId, clientName, grantId } = principal.connector;
  await s.db.insert(auditLog).values({
    id: newId(),
    customerId: principal.customer.id,
    actorUserId: principal.user.id,
    actorLabel: `${clientName ?? clientId} (agent of ${actingLabel(principal)})`,
    action,
    detail: { ...detail, client_id: clientId, grant_id: grantId },
    createdAt: nowIso(),
  });
}
