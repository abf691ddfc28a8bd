// The low-balance alert: one e-mail when the balance falls below the account's threshold, then
// quiet until the balance is back at or above it (re-armed). The Cron Trigger looks at every
// account with the alert on at each tick (docs/decisions/call-ledger-and-money.md#low-balance-alert-and-canadian-tax).
import { and, eq } from "drizzle-orm";
import { customers } from "../../../schema/identity.ts";
import { toUsd } from "../../lib/money.ts";
import { nowIso } from "../../lib/time.ts";
import type { Services } from "../context.ts";
import type { CustomerRow } from "../identity/principal.ts";

export async function sweepLowBalanceAlerts(s: Services): Promise<{ mailed: number; rearmed: number }> {
  const rows = await s.db.select().from(customers).where(eq(customers.lowBalanceAlertEnabled, true));
  let mailed = 0;
  let rearmed = 0;
  for (const row of rows) {
    const { balance_micros } = await s.ledger(row.id).summary();
    const below = balance_micros < row.lowBalanceThresholdMicros;
    if (below && row.lowBalanceAlertArmed && (await setArmed(s, row.id, false))) {
      await mailLowBalance(s, row, balance_micros);
      mailed++;
    } else if (!below && !row.lowBalanceAlertArmed && (await setArmed(s, row.id, true))) {
      rearmed++;
    }
  }
  return { mailed, rearmed };
}

/** Flips the switch only from the other state, so two overlapping ticks never both mail. */
async function setArmed(s: Services, customerId: string, armed: boolean): Promise<boolean> {
  const changed = await s.db
    .update(customers)
    .set({ lowBalanceAlertArmed: armed, updatedAt: nowIso() })
    .where(and(eq(customers.id, customerId), eq(customers.lowBalanceAlertArmed, !armed)))
    .returning({ id: customers.id });
  return changed.length === 1;
}

async function mailLowBalance(s: Services, row: CustomerRow, balanceMicros: number): Promise<void> {
  const balance = toUsd(balanceMicros).toFixed(2);
  const threshold = toUsd(row.lowBalanceThresholdMicros).toFixed(2);
  await s.mail.send({
    to: [row.email],
    subject: `Call Shield: your balance is US$${balance}`,
    text:
      `The balance of your Call Shield account has fallen below US$${threshold}: it is now US$${balance}.\n` +
      `Calls are refused when it runs out. Add credit in the portal (Billing).\n` +
      `You will not get this e-mail again until the balance is back above US$${threshold}.\n`,
  });
}
