// The call ledger's outbox: call records and their events, written in the same transaction as
// the change they describe, waiting to be sent to the call-records queue (worker/queues/
// call-records.ts writes them to D1). Oldest first; deleted only once the queue took them.
import type { CallEvent } from "../../schema/node-api.ts";
import type { CallEventMessage, CallRecordMessage, Charge } from "./types.ts";

export class CallOutbox {
  private readonly sql: SqlStorage;
  /** The account the ledger keeps ("" before it has its admission state). */
  private readonly customerId: () => string;

  constructor(sql: SqlStorage, customerId: () => string) {
    this.sql = sql;
    this.customerId = customerId;
  }

  add(message: CallRecordMessage): void {
    this.sql.exec("INSERT INTO outbox (body) VALUES (?)", JSON.stringify(message));
  }

  /** Sends a call's event, with what the ledger charged on an end; returns the message. */
  addEvent(callId: string, event: CallEvent, charge: Charge | null): CallEventMessage {
    const message = this.eventMessage(callId, event, charge);
    this.add(message);
    return message;
  }

  /** A call's event as the queue carries it. */
  eventMessage(callId: string, event: CallEvent, charge: Charge | null): CallEventMessage {
    return { type: "event", call_id: callId, customer_id: this.customerId(), event, charge };
  }

  hasMessages(): boolean {
    return this.sql.exec("SELECT 1 FROM outbox LIMIT 1").toArray().length > 0;
  }

  /** The oldest messages waiting, with the seq to delete up to once they are sent. */
  oldest(limit: number): Array<{ seq: number; body: string }> {
    return this.sql.exec<{ seq: number; body: string }>("SELECT seq, body FROM outbox ORDER BY seq LIMIT ?", limit).toArray();
  }

  sent(upToSeq: number): void {
    this.sql.exec("DELETE FROM outbox WHERE seq <= ?", upToSeq);
  }
}
