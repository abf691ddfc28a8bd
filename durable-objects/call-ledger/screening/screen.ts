// A carrier call's screening at admission, in memory from the admission state (the account's rule
// settings and do-not-originate list) and the ledger's velocity counters: the number checks, the
// attestation checks and the velocity rules, each flagging, refusing or diverting as the account
// set it. Refuse beats divert beats flag; the result goes on the call's record either way. Every
// rule that matched counts the call under its action, and a velocity rule's breach of a key is
// alerted once an hour through the outbox (worker/services/screening/breach-alerts.ts).
import type { AdmitRequest } from "../../../schema/node-api.ts";
import { digitsOf } from "../../../schema/numbers.ts";
import {
  withDefaults,
  type RuleName,
  type ScreeningFlag,
  type ScreeningResult,
  type ScreeningSettings,
} from "../../../schema/screening.ts";
import type { AdmissionState, CallRecord } from "../admission.ts";
import type { CallOutbox } from "../outbox.ts";
import type { LiveCall } from "../types.ts";
import { identityFlags } from "./identity-checks.ts";
import { callNumbers, numberFlags, type CallNumbers } from "./number-checks.ts";
import { ScreeningTally, type RuleCounts } from "./tally.ts";
import { VelocityCounters, type LiveCallKeys, type VelocityCall } from "./velocity.ts";

const DEFAULT_SETTINGS = withDefaults(null);

/** What admission does with a screened call: the result for its record, and where a divert sends it. */
export type Screened = { result: ScreeningResult; divertTo: string | null; call: VelocityCall };

export type ScreeningParts = {
  sql: SqlStorage;
  outbox: Pick<CallOutbox, "add">;
  liveCalls: () => LiveCall[];
};

export class CallScreening {
  private readonly velocity: VelocityCounters;
  private readonly tally: ScreeningTally;
  private readonly outbox: Pick<CallOutbox, "add">;
  /** The do-not-originate list as a set, made once per admission state. */
  private dno: { list: string[]; set: ReadonlySet<string> } | null = null;

  constructor(parts: ScreeningParts) {
    this.outbox = parts.outbox;
    this.tally = new ScreeningTally(parts.sql);
    this.velocity = new VelocityCounters(() => liveCallKeys(parts.liveCalls()));
  }

  /** Screens a carrier call that passed the whitelist and the controls; `number` is the dialled number (sub-customer prefix off). */
  screen(state: AdmissionState, input: { callId: string; request: AdmitRequest; number: string; now: string }): Screened {
    const { callId, request, number, now } = input;
    const settings = settingsOf(state);
    const numbers = callNumbers(request.ani, number);
    const identity = request.identity ?? null;
    const call = velocityCall(numbers, request.src_ip, Date.parse(now));
    const hits = this.velocity.count(settings, call);
    const flags = [
      ...numberFlags(settings, numbers, this.dnoOf(state)),
      ...identityFlags(settings, identity, numbers),
      ...hits.map((h) => h.flag),
    ];
    const decisive = flags.find((f) => f.action === "refuse") ?? flags.find((f) => f.action === "divert" && divertOf(settings, f));
    this.tally.count(flags, now);
    for (const hit of hits) {
      if (!this.tally.firstBreach(hit.rule, hit.key.id, call.atMs)) continue;
      this.outbox.add({
        type: "screening_breach",
        customer_id: state.account.id,
        call_id: callId,
        rule: hit.rule,
        scope: hit.key.scope,
        key: hit.key.value,
        action: hit.flag.action,
        detail: hit.flag.detail,
        at: now,
      });
    }
    const action = decisive?.action === "refuse" || decisive?.action === "divert" ? decisive.action : null;
    return {
      result: { identity, flags, action, rule: decisive?.rule ?? null },
      divertTo: decisive && action === "divert" ? divertOf(settings, decisive) : null,
      call,
    };
  }

  /** A screened call was placed: it counts among the live calls. */
  admitted(state: AdmissionState, callId: string, screened: Screened): void {
    this.velocity.admitted(settingsOf(state), callId, screened.call);
  }

  /** A call ended (any origin; only carrier calls count): out of the live calls, into the short-call share. */
  ended(state: AdmissionState | null, callId: string, record: CallRecord | null, at: string): void {
    if (!state || record?.origin !== "sip") return;
    const atMs = Date.parse(at);
    const call = { ...recordKeys(record), atMs };
    this.velocity.ended(settingsOf(state), callId, call, Math.max(0, (atMs - Date.parse(record.startedAt)) / 1000));
  }

  stats(): RuleCounts[] {
    return this.tally.stats();
  }

  private dnoOf(state: AdmissionState): ReadonlySet<string> {
    const list = state.screening?.doNotOriginate ?? [];
    if (this.dno?.list !== list) this.dno = { list, set: new Set(list) };
    return this.dno.set;
  }
}

/** The account's settings with the defaults filled in (a state written before screening has none: the defaults). */
const settingsOf = (state: AdmissionState): ScreeningSettings => state.screening?.rules ?? DEFAULT_SETTINGS;

const divertOf = (settings: ScreeningSettings, flag: ScreeningFlag): string | null =>
  settings[flag.rule as RuleName]?.divert_destination_id ?? null;

function velocityCall(numbers: CallNumbers, source: string, atMs: number): VelocityCall {
  const { caller, callerRaw, dialled, dialledRaw } = numbers;
  const dialledDigits = dialled ? dialled.number.slice(1) : digitsOf(dialledRaw);
  return {
    caller: caller?.number ?? (callerRaw ? digitsOf(callerRaw) || null : null),
    source,
    dialledDigits,
    dialledPrefix: dialled ? `${dialled.countryCallingCode}${String(dialled.nationalNumber).slice(0, 3)}` : dialledDigits.slice(0, 4),
    atMs,
  };
}

const recordKeys = (record: CallRecord): Omit<VelocityCall, "atMs"> => {
  const { atMs: _atMs, ...keys } = velocityCall(
    callNumbers((record.ani as string | null) ?? null, (record.dialed as string | null) ?? ""),
    (record.srcIp as string | null) ?? "",
    0,
  );
  return keys;
};

const liveCallKeys = (calls: LiveCall[]): LiveCallKeys[] =>
  calls.filter((c) => c.record.origin === "sip").map((c) => ({ callId: c.callId, call: recordKeys(c.record) }));
