// The credit of live calls, held in slices: a call is admitted with a first slice of talk and
// topped up as its node reports it, each slice a fair share of what the account can still give
// (see sliceLength in billing.ts), so concurrent calls share a small balance.
import type { AdmissionAccount } from "./admission.ts";
import { addReservations, freeSeconds, grantSlice, poolSeconds, sliceLength, type Reservation, type Terms } from "./billing.ts";
import { reservationOf, termsOf, type LiveCallTable } from "./live-calls.ts";
import type { Books, CallLimits, LiveRow } from "./types.ts";

export class CallCredit {
  private readonly books: Pick<Books, "balance">;
  private readonly calls: Pick<LiveCallTable, "held" | "hold">;

  constructor(books: Pick<Books, "balance">, calls: Pick<LiveCallTable, "held" | "hold">) {
    this.books = books;
    this.calls = calls;
  }

  /** The first slice of a call about to take a port, or null when its share is shorter than the least worth granting. */
  firstSlice(account: AdmissionAccount, terms: Terms, limits: CallLimits, now: string): Reservation | null {
    const slice = this.nextSlice(account, terms.ratePerMinuteMicros, now, false, limits.sliceSeconds, terms.capSeconds);
    return slice.maxCallSeconds < Math.min(limits.minGrantSeconds, terms.capSeconds) ? null : slice;
  }

  /** Tops an answered call's credit up by a slice when less than half a slice of talk is left. Returns the granted seconds. */
  topUp(row: LiveRow, account: AdmissionAccount | undefined, nowMs: number, limits: CallLimits): number {
    const reservation = reservationOf(row);
    if (row.status !== "active" || !row.answered_at || !account) return reservation.maxCallSeconds;
    const talked = (nowMs - Date.parse(row.answered_at)) / 1000;
    if (reservation.maxCallSeconds - talked >= limits.sliceSeconds / 2) return reservation.maxCallSeconds;
    const terms = termsOf(row);
    const now = new Date(nowMs).toISOString();
    const slice = this.nextSlice(
      account,
      terms.ratePerMinuteMicros,
      now,
      true,
      limits.sliceSeconds,
      terms.capSeconds - reservation.maxCallSeconds,
    );
    if (slice.maxCallSeconds <= 0) return reservation.maxCallSeconds;
    const grown = addReservations(reservation, slice);
    this.calls.hold(row.call_id, grown);
    return grown.maxCallSeconds;
  }

  /** The balance less what live calls have set aside. */
  available(): number {
    return this.books.balance().balance_micros - this.calls.held().reserved_micros;
  }

  /**
   * A call's next slice: its share of the account's free seconds and available money, split among
   * the ports that may still take a call (`holdsPort`: the call already holds one of the held ports).
   */
  private nextSlice(
    account: AdmissionAccount,
    ratePerMinuteMicros: number,
    now: string,
    holdsPort: boolean,
    sliceSeconds: number,
    capLeft: number,
  ): Reservation {
    const balance = this.books.balance();
    const held = this.calls.held();
    const free = freeSeconds(account, balance, held, now);
    const pool = poolSeconds(ratePerMinuteMicros, free, balance.balance_micros - held.reserved_micros);
    const sharers = account.ports - held.calls + (holdsPort ? 1 : 0);
    return grantSlice(ratePerMinuteMicros, free, sliceLength(pool, sharers, sliceSeconds, capLeft));
  }
}
