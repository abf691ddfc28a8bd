// The call ledger's shapes: what it needs of the AccountLedger's books, its limits, its inputs and
// answers over RPC, the messages its outbox sends to D1, and the rows it keeps.
import type { AdmissionRejection, AdmissionTicket, AdmitRequest, CallEvent, MediaName, ReportedEvent } from "../../schema/node-api.ts";
import type { ScreeningAction, VelocityRule, VelocityScope } from "../../schema/screening.ts";
import type { AdmissionDestination, CallRecord } from "./admission.ts";
import type { Reservation, Settlement, Terms } from "./billing.ts";

/** A money movement the AccountLedger's books record, unique in the ledger by its id. */
export type Posting = {
  id: string;
  type: string;
  /** Signed: positive adds to the balance, negative takes from it. */
  amountMicros: number;
  /** The call the money is for, shown with the entry. */
  callId?: string | null;
  description?: string | null;
  waivedMicros?: number;
  at: string;
};

/** What the AccountLedger's books offer the call ledger: its money and counters, in the same storage. */
export type Books = {
  balance(): { balance_micros: number; cycle_seconds_used: number; pilot_seconds_used: number };
  /** Posts a money movement (negative: a charge). */
  post(posting: Posting): void;
  /** Moves the usage counters (seconds; micro-dollars waived by the pilot). */
  count(cycleSeconds: number, pilotSeconds: number, waivedMicros: number): void;
};

/** What the live calls hold between them: ports, money set aside, free seconds of each kind. */
export type Held = { calls: number; reserved_micros: number; pilot_seconds: number; included_seconds: number };

export type CallLimits = {
  /** A node's calls are ended this long after its last sign of life. */
  leaseMs: number;
  /** Credit is held this many seconds of talk at a time. */
  sliceSeconds: number;
  /** The longest call the platform carries. */
  capSeconds: number;
  /** A call whose share of the credit is shorter than this is refused (402). */
  minGrantSeconds: number;
};

export type AdmitCallInput = { request: AdmitRequest; callId: string; now: string; limits: CallLimits };

/** A call the platform places itself (test call, web dialer): CallLedger.admitOwnCall. */
export type OwnCallRequest = Pick<AdmitRequest, "node_id" | "boot_id" | "sip_call_id" | "ani" | "dialed" | "captured_headers"> & {
  origin: "test" | "dialer";
  /** Forced destination (the account's own); absent: routing rules, then the default, by `dialed`. */
  destination_id?: string | null;
  /** Where the call leaves from, for the record (the node's address); "" when unknown. */
  src_ip?: string;
};
/**
 * Daily caps of the calls the platform places for an account: how many (counted as a test call is
 * asked for, or as a dialer call is admitted) and their talk seconds (counted as each ends).
 */
export type PlacedCallCaps = { calls: number; seconds: number };
export type PlacedCallVerdict = { allowed: true } | { allowed: false; cap: "calls" | "minutes"; retryAfterSec: number };
export type AdmitOwnCallInput = {
  request: OwnCallRequest;
  callId: string;
  now: string;
  limits: CallLimits;
  /** The account's caps on placed calls: a dialer call counts one call; any own call's length is held to the seconds left. */
  caps?: PlacedCallCaps;
};
export type AdmitCallResult =
  | { decision: "need_state" }
  | { decision: "ignore" }
  | AdmissionRejection
  | (Omit<AdmissionTicket, "destination"> & { destination: AdmissionDestination });

export type ReportInput = { nodeId: string; bootId: string; events: ReportedEvent[]; live: string[]; nowMs: number; limits: CallLimits };

/** What the ledger charged for a call, as its end message carries it to D1. */
export type Charge = { billsec: number; charged_micros: number };

/** What the call-records queue carries to D1, in the order the ledger wrote it. */
export type CallRecordMessage =
  | { type: "record"; record: CallRecord }
  | {
      type: "event";
      call_id: string;
      customer_id: string;
      event: CallEvent;
      /** What the ledger charged, on the end. */
      charge: Charge | null;
      /** The real end of a call the ledger had ended as node_lost: it replaces that end. */
      supersede?: boolean;
    }
  /** A file of the call stored in R2 before its record reached D1. */
  | { type: "media"; call_id: string; name: MediaName; key: string }
  | ScreeningBreachMessage;

/**
 * A velocity rule's first refusal or flag of a key within the hour (screening/tally.ts): the
 * call-records consumer alerts it (webhook screening.breach, the account's alert channels).
 */
export type ScreeningBreachMessage = {
  type: "screening_breach";
  customer_id: string;
  /** The call that broke the rule. */
  call_id: string;
  rule: VelocityRule;
  scope: VelocityScope;
  /** What was counted: the caller ID, the dialled prefix or the source address. */
  key: string;
  action: ScreeningAction;
  detail: string;
  at: string;
};

/** A call's event as the queue carries it. */
export type CallEventMessage = Extract<CallRecordMessage, { type: "event" }>;

/**
 * What the ledger knows of one call, for the API while D1 has it a moment later: whether it is up
 * or ended, and the messages that bring D1 to that (the record first, then its answer or its end),
 * written by the same idempotent writer as the queue's, so the queue's delivery then changes nothing.
 */
export type LedgerCallCopy = { state: "ringing" | "active" | "ended"; messages: CallRecordMessage[] };

/** A live call as the ledger keeps it. */
export type LiveCall = {
  callId: string;
  nodeId: string | null;
  bootId: string | null;
  status: "ringing" | "active";
  answeredAt: string | null;
  grantedSeconds: number;
  record: CallRecord;
};

export type LiveRow = {
  call_id: string;
  terms: string;
  reservation: string;
  node_id: string | null;
  boot_id: string | null;
  status: string;
  answered_at: string | null;
  last_seq: number;
  record: string | null;
};

/** What a settled call keeps, so a real end reported after a node_lost end can replace it. */
export type Settled = {
  billsec: number;
  chargedMicros: number;
  waivedMicros: number;
  terms?: Terms;
  reservation?: Reservation;
  settlement?: Settlement;
};
