// Who acts on a stored verdict, in order: automation (controls the caller's number), alert rules
// (e-mail and connected channels), the account webhook. Each runs on its own: a failing one is
// logged by the sink and does not stop the next.
import { alertListener } from "./alerts.ts";
import { automationListener } from "./automation.ts";
import type { Services } from "./context.ts";
import { listenersSink, type VerdictListener, type VerdictSink } from "./verdicts.ts";
import { emitNumberControlled, webhookListener } from "./webhook.ts";

export function verdictListeners(s: Services): VerdictListener[] {
  return [automationListener(s, (created) => emitNumberControlled(s, created)), alertListener(s), webhookListener(s)];
}

/** The sink a Services hands verdicts to; tests that replace outside edges build it again over their Services. */
export const verdictSinkFor = (s: Services): VerdictSink => listenersSink(verdictListeners(s));
