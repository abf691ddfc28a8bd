// The seam where a verdict leaves the calls pipeline. Everything that acts on verdicts
// (automation rules and controlled numbers, alert rules, the signed webhook) plugs in here as a
// VerdictListener; the pipeline knows nothing of them.
import type { Verdict } from "../../providers/analysis/analyser.ts";
import { describeError } from "../../lib/errors.ts";
import type { CallScreening } from "../calls/screening.ts";

export type VerdictEvent = {
  customerId: string;
  callId: string;
  analysisId: string;
  /** The tier that produced it (only its name is ever shown). */
  aiMode: string;
  verdict: Verdict;
  /** False answer supervision found in the media, or null. */
  routeAlert: Record<string, unknown> | null;
  call: {
    ani: string | null;
    dialed: string | null;
    startedAt: string;
    destinationId: string | null;
    /** What screening found before answer (attestation, identity status, the flags); absent: not screened. */
    screening?: CallScreening;
  };
  at: string;
};

export interface VerdictListener {
  readonly name: string;
  onVerdict(event: VerdictEvent): Promise<void>;
}

/** Where the pipeline hands verdicts on; Services.verdicts. */
export interface VerdictSink {
  deliver(event: VerdictEvent): Promise<void>;
}

/**
 * Hands each verdict to every listener in turn. A listener that fails is logged and does not stop
 * the others, nor undo the verdict: the verdict is stored before it is handed on.
 */
export function listenersSink(listeners: readonly VerdictListener[]): VerdictSink {
  return {
    async deliver(event) {
      for (const listener of listeners) {
        try {
          await listener.onVerdict(event);
        } catch (err) {
          console.error(`verdict listener ${listener.name} failed for call ${event.callId}`, describeError(err));
        }
      }
    },
  };
}
