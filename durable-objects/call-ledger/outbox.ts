// The call ledger's outbox: call records and their events, written in the same transaction as
// the change they describe, waiting to be sent to the call-records queue (worker/queues/
// call-records.ts writes them to D1). Oldest first; deleted only once the queue took them.
import type { CallRecordMessage } from "./types.ts";

export class CallOutbox {
  private readonly sql: SqlStorage;

  constructor(sql: SqlStorage) {
    this.sql = sql;
  }

  add(message: CallRecordMessage): void {
    this.sql.exec("INSERT INTO outbox (body) VALUES (?)", JSON.stringify(message));
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
