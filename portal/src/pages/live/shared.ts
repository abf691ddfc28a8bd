// What the live pages share: a clock for the figures that count (live calls' elapsed and remaining
// time between two polls, the countdown of a test call awaiting confirmation), how a call's
// destination reads, and the inspector's document: its query's key and when its analysis is still
// on its way.
import { useEffect, useState } from "react";
import type { Schemas } from "../../api/client.ts";

/** The time now in milliseconds, renewed every `everyMs` while `running`. */
export function useNow(everyMs = 1_000, running = true): number {
  const [now, setNow] = useState(() => Date.now());
  useEffect(() => {
    if (!running) return;
    setNow(Date.now());
    const timer = setInterval(() => setNow(Date.now()), everyMs);
    return () => clearInterval(timer);
  }, [everyMs, running]);
  return now;
}

/** Whole seconds gone since a poll answered at `sampledAtMs` (never negative). */
export const sinceSample = (now: number, sampledAtMs: number) => Math.max(0, Math.floor((now - sampledAtMs) / 1000));

/** Where a call went: the destination's label, else its address. */
export const destinationOf = (call: Pick<Schemas["LiveCall"], "routed_destination_label" | "dest_host" | "dest_port">) =>
  call.routed_destination_label || `${call.dest_host}:${call.dest_port}`;

export type Inspect = Schemas["Inspect"];
export type Leg = Schemas["MediaLeg"];

/** The key of one call's GET /calls/{id}/inspect. */
export const inspectKey = (callId: string) => ["inspect", callId] as const;

/** The analysis statuses of a call whose verdict is still to come. */
export const ANALYSIS_UNDER_WAY = ["pending", "queued", "running"];
