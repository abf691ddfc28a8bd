// POST /internal/calls/report: a node's batch of call events and its heartbeat. The Worker splits
// it by account and hands each part to that account's ledger in one call (all in parallel); the
// ledgers apply each event once, renew the node's lease, top up credit, and answer with grants.
import type { CallReport, CallReportAnswer, ReportedEvent } from "../../../schema/node-api.ts";
import type { Services } from "../context.ts";
import { callLimits } from "./admission.ts";

export async function reportCalls(s: Services, report: CallReport): Promise<CallReportAnswer> {
  const byAccount = new Map<string, { events: ReportedEvent[]; live: string[] }>();
  const part = (customerId: string) => {
    let found = byAccount.get(customerId);
    if (!found) byAccount.set(customerId, (found = { events: [], live: [] }));
    return found;
  };
  for (const item of report.events) part(item.customer_id).events.push(item);
  for (const call of report.live ?? []) part(call.customer_id).live.push(call.call_id);
  const limits = callLimits(s.config);
  const answers = await Promise.all(
    [...byAccount].map(([customerId, { events, live }]) =>
      s.ledger(customerId).report({ nodeId: report.node_id, bootId: report.boot_id, events, live, nowMs: Date.now(), limits }),
    ),
  );
  return { grants: answers.flatMap((a) => a.grants), ended: answers.flatMap((a) => a.ended) };
}
