// What the SIP node's hosted-number listener reports (node API: POST /internal/cli/arrivals): a
// call reached a number the platform holds. A check waiting for that number takes what arrived
// as its result (and the number's holder, for a hosted number, its share); a hosted number in its
// test window is confirmed live; any other call to a held number is answered with the tone and
// nothing kept. A number the platform does not hold is refused (404), so the listener is no open door.
import { and, eq, isNull } from "drizzle-orm";
import type { CliArrival, CliArrivalAnswer, CliArrivalEnd } from "../../../schema/node-api.ts";
import { cliChecks, hostedNumbers } from "../../../schema/cli-checks.ts";
import { digitsOf, sameNumber } from "../../../schema/numbers.ts";
import { newId } from "../../lib/ids.ts";
import { nowIso } from "../../lib/time.ts";
import type { Services } from "../context.ts";
import { checkAwaitingArrival, type CliCheckRow } from "./checks.ts";
import { compareCallerId } from "./compare.ts";
import { confirmIfTesting, creditAnsweredCheck, type HostedNumberRow } from "./hosted-numbers.ts";

/** How long the listener's tone plays before it hangs up. */
export const TONE_SECONDS = 3;

type Held = { number: string; hosted: HostedNumberRow | null };

/**
 * The held number `dialled` names: the same number in E.164, or, when the route delivered it in a
 * national form, the held number ending in its digits (trunk zeros dropped, seven digits at least).
 */
async function numberHeld(s: Services, dialled: string): Promise<Held | null> {
  const hosted = await s.db.select().from(hostedNumbers);
  const all: Held[] = [
    ...s.config.CLI_NUMBERS.map((n) => ({ number: n.number, hosted: null })),
    ...hosted.map((h) => ({ number: h.number, hosted: h })),
  ];
  const exact = all.find((held) => sameNumber(held.number, dialled));
  if (exact) return exact;
  const national = digitsOf(dialled).replace(/^0+/, "");
  if (national.length < 7) return null;
  return all.find((held) => digitsOf(held.number).endsWith(national)) ?? null;
}

export async function receiveArrival(s: Services, arrival: CliArrival): Promise<CliArrivalAnswer> {
  const held = await numberHeld(s, arrival.dialled);
  if (!held) return { answer: false, sip_code: 404, reason: "Not Found" };
  const now = nowIso();
  const answer = (arrivalId: string): CliArrivalAnswer => ({ answer: true, arrival_id: arrivalId, tone_seconds: TONE_SECONDS });
  const check = await checkAwaitingArrival(s, held.number, arrival.sip_call_id);
  if (check) {
    await recordArrival(s, check, arrival, now);
    return answer(check.id);
  }
  if (held.hosted && (await confirmIfTesting(s, held.hosted, now))) return answer(held.hosted.id);
  return answer(newId());
}

/** The check's result from what arrived (once: a repeated arrival changes nothing), and the hosted number's share. */
async function recordArrival(s: Services, check: CliCheckRow, arrival: CliArrival, now: string): Promise<void> {
  const compared = compareCallerId(check.callerId, arrival, check.country);
  const recorded = await s.db
    .update(cliChecks)
    .set({
      result: compared.result,
      change: compared.change,
      receivedFrom: arrival.from_user,
      receivedDisplay: arrival.from_display,
      receivedAsserted: arrival.asserted,
      receivedPrivacy: arrival.privacy.join(" ") || null,
      identityPresent: arrival.identity !== null,
      arrivedAt: arrival.received_at,
      updatedAt: now,
    })
    .where(and(eq(cliChecks.id, check.id), isNull(cliChecks.arrivedAt)))
    .returning({ id: cliChecks.id });
  if (recorded.length && check.hostedNumberId) await creditAnsweredCheck(s, check.hostedNumberId, check.id, check.feeMicros, now);
}

/** The listener's account of an answered arrival: what it heard of the platform's sample. */
export async function arrivalEnded(s: Services, arrivalId: string, end: CliArrivalEnd): Promise<void> {
  if (end.mos === null) return;
  await s.db.update(cliChecks).set({ mosSent: end.mos, updatedAt: nowIso() }).where(eq(cliChecks.id, arrivalId));
}
