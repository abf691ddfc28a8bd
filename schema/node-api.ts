// The contract between the Worker and the SIP node: every request, answer and event of the
// internal node API as a zod schema, imported by both sides so they cannot drift apart.
import { z } from "zod";
import { IdentityFacts } from "./screening.ts";

export const Transport = z.enum(["udp", "tcp", "tls"]);
export const Origin = z.enum(["sip", "dialer", "test"]);

// ---- Admission: POST /internal/calls/admit ----

export const AdmitRequest = z.object({
  node_id: z.string().min(1).max(64),
  /** Changes at every start of the node: calls admitted under an earlier boot are ended (node_lost). */
  boot_id: z.string().min(1).max(64).optional(),
  /**
   * The account whose whitelist range holds the source, from the node's copy of the whitelist: the
   * Worker asks that account's ledger alone. Without it the Worker looks the source up in D1 first.
   */
  customer_id: z.uuid().optional(),
  sip_call_id: z.string().min(1).max(256),
  /** Where the INVITE came from: the whitelist decides on it. */
  src_ip: z.string().min(2).max(45),
  src_port: z.number().int().min(1).max(65_535).optional(),
  /** Calling number (From user part, or P-Asserted-Identity when trusted). */
  ani: z.string().max(256).nullable(),
  /** Request-URI user part as received. */
  dialed: z.string().max(256),
  origin: Origin.default("sip"),
  /**
   * With origin "test": the test call the node was asked to originate. The Worker admits it
   * against that test call's destination and number instead of the whitelist.
   */
  test_call_id: z.uuid().optional(),
  /**
   * With origin "dialer": the token the web dialer's INVITE carried (X-Dialer-Token), with
   * customer_id the account it names. The Worker spends it (single use) instead of the whitelist.
   */
  dialer_token: z.string().min(1).max(128).optional(),
  /** Headers the node captured for the record (Diversion, P-Asserted-Identity, User-Agent...). */
  captured_headers: z.record(z.string(), z.string()).optional(),
  /** The caller ID's attestation as the node verified it (STIR/SHAKEN); absent from nodes that do not read it. */
  identity: IdentityFacts.optional(),
});
export type AdmitRequest = z.infer<typeof AdmitRequest>;

export const DestinationTarget = z.object({
  id: z.string(),
  host: z.string(),
  port: z.number().int(),
  transport: Transport,
  kind: z.enum(["sip", "voice_ai"]),
  provider: z.string().nullable(),
  agent_id: z.string().nullable(),
  tech_prefix: z.string().nullable(),
  /** Digest credential to answer a 401/407 from the destination. */
  auth: z.object({ username: z.string(), password: z.string(), realm: z.string().nullable() }).nullable(),
});
export type DestinationTarget = z.infer<typeof DestinationTarget>;

/** The header of every INVITE of a call the platform places: the ticket's account_assertion. */
export const PLACED_CALL_ACCOUNT_HEADER = "X-Call-Shield-Account";

export const AdmissionTicket = z.object({
  decision: z.literal("admit"),
  call_id: z.uuid(),
  customer_id: z.uuid(),
  /** The number to put in the new INVITE: sub-customer prefix stripped, tech prefix applied. */
  dialed: z.string(),
  ani: z.string().nullable(),
  destination: DestinationTarget,
  /** The call is ended on both sides at this length whatever the credit (the platform's cap). */
  max_call_seconds: z.number().int().positive(),
  /**
   * Seconds of talk the account's credit covers so far (a slice, renewed through reports as the
   * call goes on): the node ends the call when talk reaches it and no report has extended it.
   */
  granted_seconds: z.number().int().positive(),
  /** full | record_only | relay_only: whether the node records the media. */
  processing: z.string(),
  sampled: z.boolean(),
  sub_customer: z.string().nullable(),
  /** forced: a call the platform places itself (a test call) on the destination it names. */
  route: z.enum(["divert", "whitelist_entry", "routing_rule", "default", "forced"]),
  /**
   * Voice-agent mode of a test call (its agent_destination_id): the voice-AI destination the
   * answered number is bridged to instead of hearing a sample. Absent otherwise.
   */
  agent_destination: DestinationTarget.nullable().optional(),
  /**
   * A call the platform places (test, verification or web-dialer call): the account it is placed
   * for, signed by the platform (a JWS, docs/decisions/test-calls-and-dialer.md#calls-the-platform-places-cannot-be-aimed-at-others), for the
   * node to send as the PLACED_CALL_ACCOUNT_HEADER of every INVITE of the call. Absent otherwise.
   */
  account_assertion: z.string().optional(),
  /**
   * false: a verification call, which the platform places on its own route and keeps no record of
   * (nothing reported to the ledger, recorded, logged or uploaded). Absent: a call like any other.
   */
  call_record: z.boolean().optional(),
});
export type AdmissionTicket = z.infer<typeof AdmissionTicket>;

export const AdmissionRejection = z.object({
  decision: z.literal("reject"),
  /** The SIP final response to send: 403 blocked caller or suspended account, 402 no credit, 503 no port, 404 no route. */
  sip_code: z.number().int().min(400).max(699),
  reason: z.string(),
  /** The recorded call, when the account is known. */
  call_id: z.uuid().nullable(),
});
export type AdmissionRejection = z.infer<typeof AdmissionRejection>;

/** A source that is not on any whitelist: the node sends nothing back at all. */
export const AdmissionIgnore = z.object({ decision: z.literal("ignore") });

export const AdmitResponse = z.discriminatedUnion("decision", [AdmissionTicket, AdmissionRejection, AdmissionIgnore]);
export type AdmitResponse = z.infer<typeof AdmitResponse>;

/** The media of one leg: live for the inspector (a `stats` command), final in the call-end event. */
export const LiveLegStats = z.object({
  endpoint: z.string().nullable().optional(),
  packets: z.number().int().default(0),
  bytes: z.number().int().default(0),
  errors: z.number().int().default(0),
  last_packet: z.iso.datetime().nullable().optional(),
  ssrc: z.number().int().nullable().optional(),
  lost: z.number().int().nullable().optional(),
  loss_pct: z.number().nullable().optional(),
  jitter_ms: z.number().nullable().optional(),
  rtt_ms: z.number().nullable().optional(),
  mos: z.number().nullable().optional(),
});
export type LiveLegStats = z.infer<typeof LiveLegStats>;

// ---- Call events: POST /internal/calls/report (in batches, see CallReport below) ----

export const SipLogMessage = z.object({
  time_stamp: z.string(),
  direction: z.enum(["in", "out"]),
  method: z.string(),
  status: z.string().nullable().optional(),
  fromip: z.string(),
  toip: z.string(),
  fromtag: z.string().nullable().optional(),
  totag: z.string().nullable().optional(),
  first_line: z.string(),
  headers: z.record(z.string(), z.unknown()).nullable().optional(),
  raw: z.string().optional(),
});
export type SipLogMessage = z.infer<typeof SipLogMessage>;

/**
 * A call's ladder as the node sends it (the first messages of both legs, in its order): whole in
 * the end event, and so far in the answer to `stats` while the call is up (the inspector's).
 */
export const SipLadder = z.array(SipLogMessage).max(500);

/**
 * One line of a call's `sip-log.jsonl` (JSON lines, in the order the node saw or sent them): every
 * message of both legs, retransmissions included, with the message whole as it crossed the wire.
 */
export const SipLogLine = SipLogMessage.omit({ headers: true, raw: true }).extend({ raw: z.string() });
export type SipLogLine = z.infer<typeof SipLogLine>;

export const DtmfEvent = z.object({
  t: z.number(),
  digit: z.string().max(1),
  channel: z.string().default("caller"),
  ms: z.number().int().nullable().optional(),
  source: z.string().nullable().optional(),
});

export const RingingEvent = z.object({ type: z.literal("ringing"), at: z.iso.datetime(), early_media: z.boolean().optional() });
export const AnsweredEvent = z.object({ type: z.literal("answered"), at: z.iso.datetime(), codec: z.string().nullable().optional() });
export const EndedEvent = z.object({
  type: z.literal("ended"),
  at: z.iso.datetime(),
  answered_at: z.iso.datetime().nullable(),
  /** Final SIP status of the call (200 for an answered call). */
  sip_code: z.number().int().min(100).max(699),
  hangup_by: z.enum(["caller", "callee", "platform"]).nullable(),
  q850_cause: z.number().int().min(0).max(127).nullable().optional(),
  end_reason: z.string().max(64).nullable().optional(),
  pdd_ms: z.number().int().nonnegative().nullable().optional(),
  answer_delay_ms: z.number().int().nonnegative().nullable().optional(),
  early_media: z.boolean().nullable().optional(),
  codec: z.string().nullable().optional(),
  media_ip: z.string().nullable().optional(),
  mos: z.number().nullable().optional(),
  jitter_ms: z.number().nullable().optional(),
  packet_loss_pct: z.number().nullable().optional(),
  /** Per leg, what the relay measured on the packets each party sent. */
  qos: z.object({ caller: LiveLegStats, callee: LiveLegStats }).nullable().optional(),
  dtmf: z.array(DtmfEvent).max(1000).nullable().optional(),
  ladder: SipLadder.optional(),
});
/** How a transfer ordered through the NodeHub went: a platform bridge, or the caller's answer to our REFER. */
export const TransferEvent = z.object({
  type: z.literal("transfer"),
  at: z.iso.datetime(),
  target: z.string().max(64),
  mode: z.enum(["platform", "refer"]),
  /** accepted: the caller took the REFER (202) and reports progress by NOTIFY; completed or failed: final. */
  status: z.enum(["accepted", "completed", "failed"]),
  code: z.number().int().min(100).max(699).nullable(),
});
export const CallEvent = z.discriminatedUnion("type", [RingingEvent, AnsweredEvent, EndedEvent, TransferEvent]);
export type CallEvent = z.infer<typeof CallEvent>;
export type EndedEvent = z.infer<typeof EndedEvent>;
export type TransferEvent = z.infer<typeof TransferEvent>;

/** The answer to one event posted alone (the node's per-call path, replaced by CallReport). */
export const CallEventResponse = z.object({
  call_id: z.uuid(),
  status: z.string(),
  billsec: z.number().int().nullable(),
  charged_amount: z.number().nullable(),
});

/** One event of one call, numbered from 1 per call in the order the node produced them. */
export const ReportedEvent = z.object({
  call_id: z.uuid(),
  customer_id: z.uuid(),
  seq: z.number().int().positive(),
  event: CallEvent,
});
export type ReportedEvent = z.infer<typeof ReportedEvent>;

/**
 * POST /internal/calls/report: what a node sends in batches (by count and a short time window), and
 * as its heartbeat (every few seconds, with `live`). A report renews the node's lease with every
 * account it names; a node whose lease lapses, or that comes back with a new boot id, has its calls
 * ended by the ledger (end_reason node_lost). The same report may be sent again (a retry after a
 * timeout): events are applied once each, by call and seq.
 */
export const CallReport = z.object({
  node_id: z.string().min(1).max(64),
  boot_id: z.string().min(1).max(64),
  /** Names the batch in logs; retries of one batch carry the same id. */
  batch_id: z.string().min(1).max(64),
  events: z.array(ReportedEvent).max(1000),
  /** Every call the node carries now (heartbeats): their leases are renewed, their credit topped up. */
  live: z
    .array(z.object({ call_id: z.uuid(), customer_id: z.uuid() }))
    .max(20_000)
    .optional(),
});
export type CallReport = z.infer<typeof CallReport>;

export const CallReportAnswer = z.object({
  /** Talk seconds covered now, for each live or reported call still up (only grows). */
  grants: z.array(z.object({ call_id: z.uuid(), granted_seconds: z.number().int().nonnegative() })),
  /** Calls the ledger has ended (node_lost while the node was cut off, unknown): the node hangs them up. */
  ended: z.array(z.object({ call_id: z.uuid(), reason: z.string() })),
});
export type CallReportAnswer = z.infer<typeof CallReportAnswer>;

// ---- Media uploads: PUT /internal/calls/{call_id}/media/{name}?customer_id=<uuid> ----
// Call records reach D1 a moment after the ledger has them: an upload for a call the ledger of
// `customer_id` knows but D1 does not hold yet is taken all the same (what it changes in the record
// follows the record through the ledger's outbox); an unknown call answers 404 (drop the file).

/**
 * What a node uploads when a call ends: the stereo recording, one capture per media leg, and the
 * SIP log (every message of both legs, one SipLogLine a line). The body is the file's bytes; the
 * Worker stores it in R2 under the call and marks the call (the SIP log's key is derived from it).
 */
export const MediaName = z.enum(["recording.wav", "caller.pcap", "callee.pcap", "sip-log.jsonl"]);
export type MediaName = z.infer<typeof MediaName>;
export const MEDIA_CONTENT_TYPES: Record<MediaName, string> = {
  "recording.wav": "audio/wav",
  "caller.pcap": "application/vnd.tcpdump.pcap",
  "callee.pcap": "application/vnd.tcpdump.pcap",
  "sip-log.jsonl": "application/x-ndjson",
};
/** The largest upload accepted: 4 h of 8 kHz 16-bit stereo is 460 MB; R2 takes it, a Worker body of that size streams. */
export const MAX_MEDIA_BYTES = 512 * 1024 * 1024;
export const MediaUploadResponse = z.object({ key: z.string(), size: z.number().int() });

// ---- Whitelist snapshot: GET /internal/whitelist?since=<version> ----

export const WhitelistSnapshot = z.object({
  version: z.number().int(),
  /** Absent when `since` was already the current version. Ranges of different accounts never overlap. */
  ranges: z.array(z.object({ start: z.string().length(32), end: z.string().length(32), customer_id: z.uuid().optional() })).optional(),
  /**
   * Entries awaiting proof of control (they may overlap ranges and each other): an OPTIONS from an
   * address inside one is answered 200 with its code in X-Call-Shield-Proof, even when the address
   * is in no range. Nothing else from such an address is answered.
   */
  proofs: z.array(z.object({ start: z.string().length(32), end: z.string().length(32), code: z.string().min(1).max(64) })).optional(),
});
export type WhitelistSnapshot = z.infer<typeof WhitelistSnapshot>;

// ---- Monitoring: GET /internal/monitor/destinations, POST /internal/monitor/results ----

export const MonitorTarget = z.object({ id: z.string(), host: z.string(), port: z.number().int(), transport: Transport });
export const MonitorTargets = z.object({ destinations: z.array(MonitorTarget) });

export const MonitorResult = z.object({
  destination_id: z.string(),
  status: z.enum(["up", "down"]),
  at: z.iso.datetime(),
  rtt_ms: z.number().int().nonnegative().nullable(),
  code: z.number().int().nullable(),
  error: z.string().max(200).nullable(),
});
export const MonitorResults = z.object({ results: z.array(MonitorResult).max(1000) });
export type MonitorResult = z.infer<typeof MonitorResult>;

// ---- Test calls: the Worker asks a node to originate (a HubCommand), the node admits the call
// through POST /internal/calls/admit with origin "test" and test_call_id, places it, reports
// its call events like any call, and its test-call progress to
// POST /internal/test-calls/{test_call_id}/progress. ----

/** What the node plays once the far end answers: the announcement first, then the sample. */
export const TestSpeech = z.enum(["route_test", "scam_sample", "verification_code"]);
export type TestSpeech = z.infer<typeof TestSpeech>;

export const OriginateCommand = z.object({
  type: z.literal("originate"),
  test_call_id: z.uuid(),
  /** Call-ID of the outbound INVITE, chosen by the Worker so the test call and its call record meet. */
  sip_call_id: z.string().min(1).max(256),
  number: z.string(),
  /** The From user part: a verified number of the account, or the platform's own. */
  caller_id: z.string(),
  seconds: z.number().int().positive(),
  speech: TestSpeech,
  /** Six digits the platform speaks, for speech "verification_code". */
  code: z
    .string()
    .regex(/^[0-9]{6}$/)
    .optional(),
  /** How long the node lets it ring before it sends CANCEL. */
  ring_timeout_seconds: z.number().int().positive().default(45),
  /** Voice-agent mode: the answered number is bridged to this voice-AI destination instead of a sample. */
  agent_destination_id: z.uuid().optional(),
  instruction: z.string().max(2000).optional(),
});
export type OriginateCommand = z.infer<typeof OriginateCommand>;

export const TestCallStatus = z.enum([
  "awaiting_confirm",
  "queued",
  "dialing",
  "ringing",
  "answered",
  "done",
  "failed",
  "cancelled",
  "expired",
]);
export type TestCallStatus = z.infer<typeof TestCallStatus>;

/** Node → Worker: a test call moved on. Later states never go back (the Worker ignores a step back). */
export const TestCallProgress = z.object({
  status: TestCallStatus.exclude(["awaiting_confirm", "queued", "expired"]),
  at: z.iso.datetime(),
  node_id: z.string().min(1).max(64),
  /** The ledger's call id, once the call was admitted. */
  call_id: z.uuid().nullable().optional(),
  answered: z.boolean().optional(),
  sip_code: z.number().int().min(100).max(699).nullable().optional(),
  sip_reason: z.string().max(200).nullable().optional(),
  talk_seconds: z.number().nonnegative().nullable().optional(),
  ended_by: z.enum(["platform", "callee", "cancel", "timeout"]).nullable().optional(),
  error: z.string().max(200).nullable().optional(),
  /** Milliseconds from the INVITE to the first provisional answer above 100 (on ringing). */
  post_dial_ms: z.number().int().nonnegative().nullable().optional(),
  /** Milliseconds from the INVITE to the 2xx (on answered). */
  answer_ms: z.number().int().nonnegative().nullable().optional(),
  /** MOS of what the platform received from the far end (on the final step), null: no packet. */
  mos_received: z.number().min(1).max(5).nullable().optional(),
});
export type TestCallProgress = z.infer<typeof TestCallProgress>;

// ---- The hosted-number listener: calls arriving at numbers the platform holds (CLI checks) ----

/** Node → Worker (POST /internal/cli/arrivals): an INVITE reached the listener; answered or not by the reply. */
export const CliArrival = z.object({
  node_id: z.string().min(1).max(64),
  sip_call_id: z.string().min(1).max(256),
  /** The number dialled: the Request-URI's user part (the To header's when the Request-URI has none). */
  dialled: z.string().max(128),
  /** From's user part and display name as they arrived (null: absent). */
  from_user: z.string().max(128).nullable(),
  from_display: z.string().max(128).nullable(),
  /** P-Asserted-Identity's user part (its first value; null: absent). */
  asserted: z.string().max(128).nullable(),
  /** The Privacy header's values, lower-cased (RFC 3323: none, id, user, header, session, critical). */
  privacy: z.array(z.string().max(32)).max(8),
  /** The Identity header (RFC 8224) as it arrived, when present. */
  identity: z.string().max(8192).nullable(),
  src_ip: z.string().max(64),
  src_port: z.number().int().min(0).max(65_535),
  received_at: z.iso.datetime(),
});
export type CliArrival = z.infer<typeof CliArrival>;

export const CliArrivalAnswer = z.discriminatedUnion("answer", [
  /** Answer (200 with SDP), play a tone for tone_seconds, then hang up (BYE). */
  z.object({ answer: z.literal(true), arrival_id: z.uuid(), tone_seconds: z.number().min(0.5).max(30) }),
  /** Refuse with this final answer (404: not a number the platform holds). */
  z.object({ answer: z.literal(false), sip_code: z.number().int().min(400).max(699), reason: z.string().max(200) }),
]);
export type CliArrivalAnswer = z.infer<typeof CliArrivalAnswer>;

/** Node → Worker (POST /internal/cli/arrivals/{arrival_id}/end): how the answered arrival went. */
export const CliArrivalEnd = z.object({
  node_id: z.string().min(1).max(64),
  /** MOS of the RTP the listener received (the platform's sample through the route); null: no packet. */
  mos: z.number().min(1).max(5).nullable(),
  packets: z.number().int().nonnegative(),
  packet_loss_pct: z.number().min(0).max(100).nullable(),
  jitter_ms: z.number().nonnegative().nullable(),
  /** Who hung up: the listener after its tone, or the caller first. */
  ended_by: z.enum(["listener", "caller"]),
  ended_at: z.iso.datetime(),
});
export type CliArrivalEnd = z.infer<typeof CliArrivalEnd>;

// ---- NodeHub commands over the node's WebSocket ----

export const HubCommand = z.discriminatedUnion("type", [
  z.object({ type: z.literal("options"), host: z.string(), port: z.number().int(), transport: Transport }),
  z.object({ type: z.literal("hangup"), call_id: z.string() }),
  z.object({ type: z.literal("transfer"), call_id: z.string(), target: z.string(), mode: z.enum(["platform", "refer"]) }),
  // Answered {active_calls, transactions, media: {sampled_at, legs} | null, ladder: SipLadder | null}:
  // media and ladder are null when the node does not carry the call.
  z.object({ type: z.literal("stats"), call_id: z.string() }),
  OriginateCommand,
  z.object({ type: z.literal("cancel_test_call"), test_call_id: z.uuid() }),
]);
export type HubCommand = z.infer<typeof HubCommand>;

/** Worker → node: {id, command}; node → Worker: {id, ok, result | error}. */
export const HubRequest = z.object({ id: z.string(), command: HubCommand });
export type HubRequest = z.infer<typeof HubRequest>;
export const HubReply = z.object({
  id: z.string(),
  ok: z.boolean(),
  result: z.record(z.string(), z.unknown()).optional(),
  error: z.string().optional(),
});
export type HubReply = z.infer<typeof HubReply>;

/** What an OPTIONS check answers. */
export const OptionsResult = z.object({
  code: z.number().int().nullable(),
  rtt_ms: z.number().int().nullable(),
  error: z.string().nullable(),
});
export type OptionsResult = z.infer<typeof OptionsResult>;
