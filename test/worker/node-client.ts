// The SIP node's side of the internal node API, as the tests play it.
import { env } from "cloudflare:test";
import { exports } from "cloudflare:workers";
import { ORIGIN, request } from "./client.ts";

export const NODE_ID = "test-node-1";
export const BOOT_ID = "test-boot-1";

/** Each call's last event number and account, as the node keeps them. */
const seqs = new Map<string, number>();
const accounts = new Map<string, string>();

/** Waits until D1 shows what an event says (the records reach D1 through the call-records queue). */
async function untilWritten(callId: string, event: Record<string, unknown>, timeoutMs = 5_000) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const row = await callRow(callId);
    const done =
      row &&
      (event.type === "ringing" ||
        (event.type === "answered" && (row.answered_at !== null || ["completed", "failed", "rejected"].includes(row.status))) ||
        (event.type === "transfer" && row.transfer_status !== null && row.transfer_at === event.at) ||
        (event.type === "ended" && ["completed", "failed", "rejected"].includes(row.status) && row.ended_at !== null));
    if (done || Date.now() > deadline) return row;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/** Waits until D1 holds the call's record. */
export const untilRecorded = (callId: string) => untilWritten(callId, { type: "ringing" });

export const node = {
  admit: async (body: Record<string, unknown>) => {
    const res = await request("POST", "/internal/calls/admit", {
      body: { node_id: NODE_ID, boot_id: BOOT_ID, sip_call_id: `${crypto.randomUUID()}@carrier.test`, ani: "+14155550100", ...body },
      headers: { Authorization: `Bearer ${env.NODE_TOKEN}` },
    });
    if (res.body?.call_id && res.body.customer_id) accounts.set(res.body.call_id, res.body.customer_id);
    if (res.body?.call_id) await untilRecorded(res.body.call_id);
    return res;
  },
  /** POST /internal/calls/report with some events and live calls, as the node batches them. */
  report: (body: { events?: unknown[]; live?: unknown[]; boot_id?: string; node_id?: string }) =>
    request("POST", "/internal/calls/report", {
      body: { node_id: NODE_ID, boot_id: BOOT_ID, batch_id: crypto.randomUUID(), events: [], ...body },
      headers: { Authorization: `Bearer ${env.NODE_TOKEN}` },
    }),
  /**
   * One event of one admitted call, reported as the node does (numbered, with its account), then
   * awaited in D1; answers the call as D1 then holds it.
   */
  event: async (callId: string, event: Record<string, unknown>) => {
    const customerId = accounts.get(callId) ?? (await callRow(callId))?.customer_id;
    if (!customerId) throw new Error(`call ${callId} was not admitted through node.admit`);
    const seq = (seqs.get(callId) ?? 0) + 1;
    seqs.set(callId, seq);
    const res = await node.report({ events: [{ call_id: callId, customer_id: customerId, seq, event }] });
    if (res.status !== 200) return res;
    const row = await untilWritten(callId, event);
    const body = row && {
      call_id: row.id,
      status: row.status,
      billsec: row.billsec,
      charged_amount: row.charged_micros === null ? null : row.charged_micros / 1_000_000,
    };
    return { ...res, body };
  },
  get: (path: string) => request("GET", `/internal${path}`, { headers: { Authorization: `Bearer ${env.NODE_TOKEN}` } }),
  post: (path: string, body: unknown) =>
    request("POST", `/internal${path}`, { body, headers: { Authorization: `Bearer ${env.NODE_TOKEN}` } }),
  /** PUT /internal/calls/{id}/media/{name} with the file's bytes as the body, as the node uploads it. */
  upload: async (callId: string, name: string, bytes: Uint8Array, headers: Record<string, string> = {}) => {
    const res = await exports.default.fetch(
      new Request(`${ORIGIN}/internal/calls/${callId}/media/${name}`, {
        method: "PUT",
        body: bytes,
        headers: {
          Authorization: `Bearer ${env.NODE_TOKEN}`,
          "Content-Type": "application/octet-stream",
          "Content-Length": String(bytes.byteLength),
          ...headers,
        },
      }),
    );
    const text = await res.text();
    return { status: res.status, body: text ? JSON.parse(text) : null, headers: res.headers };
  },
};

/** The call row as D1 holds it. */
export const callRow = (id: string) => env.DB.prepare("SELECT * FROM calls WHERE id = ?").bind(id).first<Record<string, any>>();
