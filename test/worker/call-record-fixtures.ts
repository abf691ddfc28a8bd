// Calls and what the pipeline writes about them (verdicts, transcripts, entities, keywords, the
// SIP ladder), as rows in D1. The reads are under test here, not the pipeline that fills them,
// so the rows are written the way schema/calls.ts describes them.
import { env } from "cloudflare:test";
import type { Session } from "./fixtures.ts";

type Row = Record<string, unknown>;

async function insert(table: string, row: Row): Promise<void> {
  const columns = Object.keys(row);
  const values = columns.map((c) => {
    const v = row[c];
    if (v === undefined) return null;
    if (typeof v === "boolean") return v ? 1 : 0;
    if (v !== null && typeof v === "object") return JSON.stringify(v);
    return v;
  });
  await env.DB.prepare(`INSERT INTO ${table} (${columns.join(", ")}) VALUES (${columns.map(() => "?").join(", ")})`)
    .bind(...values)
    .run();
}

let sequence = 0;

/**
 * A call of `owner`'s (columns of schema/calls.ts, snake_case); an ended, answered SIP call unless
 * told otherwise. Calls start within the last hour, each a second after the one before.
 */
export async function insertCall(owner: Session, overrides: Row = {}): Promise<Row & { id: string; started_at: string }> {
  const started = new Date(Date.now() - 3_600_000 + ++sequence * 1000).toISOString();
  const row: Row = {
    id: crypto.randomUUID(),
    customer_id: owner.account.id,
    sip_call_id: `${crypto.randomUUID()}@carrier.test`,
    origin: "sip",
    direction: "inbound",
    status: "completed",
    src_ip: "203.0.113.10",
    ani: "+14155550100",
    dialed: "442079460000",
    dest_host: "sbc.carrier.test",
    dest_port: 5060,
    dest_transport: "udp",
    dest_kind: "sip",
    started_at: started,
    answered_at: started,
    ended_at: new Date(Date.parse(started) + 30_000).toISOString(),
    duration_sec: 30,
    billsec: 60,
    charged_micros: 12_000,
    transcript_status: "none",
    analysis_status: "none",
    processing: "full",
    sampled: true,
    recording_available: false,
    has_route_alert: false,
    created_at: started,
    updated_at: started,
    ...overrides,
  };
  await insert("calls", row);
  return row as Row & { id: string; started_at: string };
}

export type VerdictRow = {
  probability: number;
  category?: string;
  recommendation?: "block" | "review" | "allow";
  title?: string | null;
  entity?: string | null;
  keywords?: string[] | null;
  red_flags?: string[] | null;
  route_alert?: Row | null;
  summary?: string | null;
  created_at?: string;
} & Row;

/**
 * A verdict for the call, made current as the pipeline does: the analyses row, the summary
 * copied onto the calls row, and the call's entity and keyword rows replaced.
 */
export async function giveVerdict(owner: Session, call: { id: string; started_at: string }, verdict: VerdictRow) {
  const { probability, category = "unknown", recommendation = "review", entity = null, keywords = null, ...rest } = verdict;
  const row: Row = {
    id: crypto.randomUUID(),
    customer_id: owner.account.id,
    call_id: call.id,
    ai_mode: "power",
    provider: "secret-provider",
    model: "secret-model-7b",
    location: "ca",
    prompt_version: "v1",
    title: null,
    probability,
    category,
    entity,
    caller_identity: null,
    red_flags: null,
    language: "en",
    tcpa_comment: null,
    summary: null,
    recommendation,
    keywords,
    route_alert: null,
    input_tokens: 1200,
    output_tokens: 300,
    cost_micros: 4_000,
    latency_ms: 900,
    created_at: new Date().toISOString(),
    ...rest,
  };
  await insert("analyses", row);
  await env.DB.batch([
    env.DB.prepare(
      "UPDATE calls SET analysis_id = ?, probability = ?, category = ?, recommendation = ?, has_route_alert = ?, " +
        "analysis_status = 'done' WHERE id = ?",
    ).bind(row.id, probability, category, recommendation, row.route_alert ? 1 : 0, call.id),
    env.DB.prepare("DELETE FROM call_entities WHERE call_id = ?").bind(call.id),
    env.DB.prepare("DELETE FROM call_keywords WHERE call_id = ?").bind(call.id),
  ]);
  if (entity) await insert("call_entities", { customer_id: owner.account.id, call_id: call.id, entity, started_at: call.started_at });
  for (const keyword of new Set((keywords ?? []).map((k) => k.trim().toLowerCase()))) {
    await insert("call_keywords", { customer_id: owner.account.id, call_id: call.id, keyword, started_at: call.started_at });
  }
  return row;
}

/** A transcript of the call (the newest is the call's). */
export async function addTranscript(owner: Session, callId: string, overrides: Row = {}) {
  const row: Row = {
    id: crypto.randomUUID(),
    customer_id: owner.account.id,
    call_id: callId,
    provider: "secret-stt",
    model: "secret-whisper",
    location: "ca",
    language: "en",
    audio_seconds: 29.5,
    cost_micros: 2_500,
    text: "Hello, this is card services.",
    segments: [{ speaker: "caller", start: 0.4, end: 2.1, text: "Hello, this is card services." }],
    created_at: new Date().toISOString(),
    ...overrides,
  };
  await insert("transcripts", row);
  return row;
}

/** SIP ladder rows of the call, numbered in the order given. */
export async function addSipMessages(owner: Session, callId: string, messages: Row[]) {
  let seq = 0;
  for (const m of messages) {
    await insert("call_sip_messages", {
      customer_id: owner.account.id,
      call_id: callId,
      seq: seq++,
      from_tag: null,
      to_tag: null,
      headers: null,
      raw: null,
      status: null,
      ...m,
    });
  }
}
