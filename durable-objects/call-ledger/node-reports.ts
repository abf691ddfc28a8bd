// A node's report for the account: its batch of call events, each applied once (by seq), and its
// heartbeat, the calls it carries; answered with each named call's credit (topped up when low) or
// its end when the ledger ended it.
import type { CallReportAnswer, ReportedEvent } from "../../schema/node-api.ts";
import type { AdmissionState } from "./admission.ts";
import type { CallCredit } from "./credit.ts";
import type { EndedCalls } from "./ended-calls.ts";
import type { LiveCallTable } from "./live-calls.ts";
import type { NodeLeases } from "./node-leases.ts";
import type { CallOutbox } from "./outbox.ts";
import { answeredSeconds, type CallSettlement } from "./settlement.ts";
import type { ReportInput } from "./types.ts";

export type NodeReportParts = {
  state: () => AdmissionState | null;
  leases: Pick<NodeLeases, "touch" | "endUnlisted">;
  calls: Pick<LiveCallTable, "row" | "noteSeq" | "markAnswered">;
  credit: Pick<CallCredit, "topUp">;
  settlement: Pick<CallSettlement, "end" | "reconcileLateEnd">;
  ended: Pick<EndedCalls, "endReasonOf">;
  outbox: Pick<CallOutbox, "addEvent">;
};

export class NodeReports {
  private readonly parts: NodeReportParts;

  constructor(parts: NodeReportParts) {
    this.parts = parts;
  }

  report(input: ReportInput): CallReportAnswer {
    const { nodeId, bootId, nowMs, limits } = input;
    const { leases, calls, credit } = this.parts;
    leases.touch(nodeId, bootId, nowMs, limits.leaseMs);
    for (const item of input.events) this.apply(item);
    if (input.live.length > 0) leases.endUnlisted(nodeId, bootId, input.live, nowMs, limits.leaseMs);
    const grants: CallReportAnswer["grants"] = [];
    const ended: CallReportAnswer["ended"] = [];
    const live = new Set(input.live);
    const named = new Set([...live, ...input.events.map((e) => e.call_id)]);
    const account = this.parts.state()?.account;
    for (const callId of named) {
      const row = calls.row(callId);
      if (row) grants.push({ call_id: callId, granted_seconds: credit.topUp(row, account, nowMs, limits) });
      else if (live.has(callId)) ended.push({ call_id: callId, reason: this.parts.ended.endReasonOf(callId) ?? "unknown_call" });
    }
    return { grants, ended };
  }

  private apply({ call_id: callId, seq, event }: ReportedEvent): void {
    const { calls, settlement } = this.parts;
    const row = calls.row(callId);
    if (!row) return settlement.reconcileLateEnd(callId, event);
    if (seq <= row.last_seq) return;
    calls.noteSeq(callId, seq);
    if (event.type === "answered" && row.status !== "active") calls.markAnswered(callId, event.at);
    if (event.type === "ended") settlement.end(row, event, answeredSeconds(event), event.end_reason ?? null);
    else this.parts.outbox.addEvent(callId, event, null);
  }
}
