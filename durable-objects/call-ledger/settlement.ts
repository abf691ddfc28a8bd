// Ending a live call: its port and credit released, the call charged on its terms from what it
// held (settle in billing.ts), the result kept, its end sent to D1 and kept a while with its
// record; and the real end of a call the ledger had ended as node_lost, charged again as it ended.
import type { CallEvent, EndedEvent } from "../../schema/node-api.ts";
import { settle, type Settlement } from "./billing.ts";
import type { EndedCalls } from "./ended-calls.ts";
import { recordOf, reservationOf, termsOf, type LiveCallTable } from "./live-calls.ts";
import type { CallOutbox } from "./outbox.ts";
import type { AdmissionState } from "./admission.ts";
import type { PlacedUsage } from "./placed-usage.ts";
import type { CallScreening } from "./screening/screen.ts";
import type { Books, CallEventMessage, Charge, LiveRow, Settled } from "./types.ts";

export type SettlementParts = {
  books: Books;
  calls: Pick<LiveCallTable, "remove">;
  ended: Pick<EndedCalls, "keepSettled" | "settled" | "keep" | "replaceEnd">;
  outbox: Pick<CallOutbox, "addEvent" | "add" | "eventMessage">;
  placed: Pick<PlacedUsage, "countTalk">;
  /** The balance less what live calls have set aside. */
  available: () => number;
  state: () => AdmissionState | null;
  /** Hears each end: the live calls and short calls its velocity rules count. */
  screening: Pick<CallScreening, "ended">;
};

export class CallSettlement {
  private readonly parts: SettlementParts;

  constructor(parts: SettlementParts) {
    this.parts = parts;
  }

  /** Ends a live call as `event` says: settled, its end sent to D1, its record and end kept a while. */
  end(row: LiveRow, event: EndedEvent, answeredSeconds: number, endReason: string | null): void {
    const charge = this.chargeAndRelease(row, answeredSeconds, event.at, endReason);
    const message = this.parts.outbox.addEvent(row.call_id, event, charge);
    const record = recordOf(row);
    if (record) this.parts.ended.keep(row.call_id, record, message);
  }

  /** Ends a call no node carries any more, as of `atMs`: charged up to then if it was answered. */
  endLost(row: LiveRow, atMs: number): void {
    const at = new Date(atMs).toISOString();
    const answeredAt = row.status === "active" ? row.answered_at : null;
    const event: EndedEvent = {
      type: "ended",
      at,
      answered_at: answeredAt,
      sip_code: answeredAt ? 200 : 503,
      hangup_by: "platform",
      end_reason: "node_lost",
    };
    this.end(row, event, answeredAt ? secondsBetween(answeredAt, at) : 0, "node_lost");
  }

  /** An end reported for a call the ledger ended as node_lost (its node was cut off): charged as it really ended. */
  reconcileLateEnd(callId: string, event: CallEvent): void {
    if (event.type !== "ended") return;
    const settled = this.parts.ended.settled(callId);
    if (!settled || settled.endReason !== "node_lost") return;
    const prior = settled.result;
    if (!prior.terms || !prior.reservation || !prior.settlement) return;
    const real = settle(prior.terms, prior.reservation, answeredSeconds(event));
    const delta = real.chargedMicros - prior.chargedMicros;
    // The reservation was released at the node_lost end: a further charge never takes the balance below zero.
    const moved = delta > 0 ? Math.min(delta, Math.max(0, this.parts.available())) : delta;
    if (moved !== 0) {
      this.parts.books.post({
        id: `call-adjust:${callId}`,
        type: "call",
        amountMicros: -moved,
        callId,
        description: "Call end reconciled",
        at: event.at,
      });
    }
    this.count(real, prior.settlement);
    const result: Settled = {
      ...prior,
      billsec: real.billsec,
      chargedMicros: prior.chargedMicros + moved,
      waivedMicros: real.waivedMicros,
      settlement: real,
    };
    this.parts.ended.keepSettled(callId, result, event.end_reason ?? "reconciled");
    const message: CallEventMessage = {
      ...this.parts.outbox.eventMessage(callId, event, { billsec: result.billsec, charged_micros: result.chargedMicros }),
      supersede: true,
    };
    this.parts.outbox.add(message);
    this.parts.ended.replaceEnd(callId, message);
  }

  /** The port released, the call charged on its terms, the result kept. */
  private chargeAndRelease(row: LiveRow, answered: number, at: string, endReason: string | null): Charge {
    const terms = termsOf(row);
    const reservation = reservationOf(row);
    const bill = settle(terms, reservation, answered);
    this.parts.calls.remove(row.call_id);
    this.count(bill);
    const record = recordOf(row);
    this.parts.placed.countTalk(record?.origin, answered, at);
    this.parts.screening.ended(this.parts.state(), row.call_id, record, at);
    if (bill.billsec > 0) {
      this.parts.books.post({
        id: `call:${row.call_id}`,
        type: "call",
        amountMicros: -bill.chargedMicros,
        callId: row.call_id,
        description: `Call ${(record?.dialed as string | undefined) ?? ""}`.trim(),
        waivedMicros: bill.waivedMicros,
        at,
      });
    }
    const result: Settled = {
      billsec: bill.billsec,
      chargedMicros: bill.chargedMicros,
      waivedMicros: bill.waivedMicros,
      terms,
      reservation,
      settlement: bill,
    };
    this.parts.ended.keepSettled(row.call_id, result, endReason);
    return { billsec: bill.billsec, charged_micros: bill.chargedMicros };
  }

  /** Moves the usage counters by a settlement, less what an earlier one (`before`) counted already. */
  private count(bill: Settlement, before?: Settlement): void {
    const billed = (s: Settlement) => s.billsec - s.waivedSeconds;
    this.parts.books.count(
      billed(bill) - (before ? billed(before) : 0),
      bill.waivedSeconds - (before?.waivedSeconds ?? 0),
      bill.waivedMicros - (before?.waivedMicros ?? 0),
    );
  }
}

/** Seconds a reported end says the call talked (0 unanswered). */
export const answeredSeconds = (event: EndedEvent): number => (event.answered_at ? secondsBetween(event.answered_at, event.at) : 0);

const secondsBetween = (from: string, to: string): number => Math.max(0, (Date.parse(to) - Date.parse(from)) / 1000);
