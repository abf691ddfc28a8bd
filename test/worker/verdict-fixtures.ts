// Verdicts as the pipeline hands them to the seam (worker/services/verdicts.ts), made by hand so
// the listeners (automation, alert rules, the webhook) are driven without running an analysis.
import type { Verdict } from "../../worker/providers/analysis/analyser.ts";
import type { VerdictEvent } from "../../worker/services/verdicts.ts";
import { giveVerdict, insertCall } from "./call-record-fixtures.ts";
import type { Session } from "./fixtures.ts";

export const scamVerdict = (overrides: Partial<Verdict> = {}): Verdict => ({
  title: "Card services scam",
  probability: 96,
  category: "credit_card_scam",
  entity: "Visa",
  caller_identity: "Card services",
  red_flags: ["Asks for the one-time code", "Claims urgency"],
  language: "en",
  tcpa_comment: null,
  summary: "The caller claims to be the bank's fraud department and asks for a one-time code.",
  recommendation: "block",
  keywords: ["card", "code"],
  ...overrides,
});

/** A call of the owner's from `ani`, its verdict stored, and the event the pipeline would hand on. */
export async function verdictEvent(
  owner: Session,
  opts: {
    ani?: string | null;
    verdict?: Partial<Verdict>;
    routeAlert?: Record<string, unknown> | null;
    call?: Record<string, unknown>;
  } = {},
): Promise<VerdictEvent> {
  const verdict = scamVerdict(opts.verdict);
  const ani = opts.ani === undefined ? "+14155550100" : opts.ani;
  const call = await insertCall(owner, { ani, analysis_status: "done", ...opts.call });
  const analysis = await giveVerdict(owner, call, { ...verdict, route_alert: opts.routeAlert ?? null });
  return {
    customerId: owner.account.id,
    callId: call.id,
    analysisId: String(analysis.id),
    aiMode: "power",
    verdict,
    routeAlert: opts.routeAlert ?? null,
    call: { ani, dialed: String(call.dialed), startedAt: call.started_at, destinationId: null },
    at: new Date().toISOString(),
  };
}

let aniCounter = 0;
/** A calling number no other test uses. */
export const uniqueAni = () => `+1415${String(Date.now() % 10_000).padStart(4, "0")}${String(++aniCounter % 1000).padStart(3, "0")}`;
