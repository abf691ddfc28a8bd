// The SIP node's side of the internal node API, as the tests play it.
import { env } from "cloudflare:test";
import { request } from "./client.ts";

export const NODE_ID = "test-node-1";

export const node = {
  admit: (body: Record<string, unknown>) =>
    request("POST", "/internal/calls/admit", {
      body: { node_id: NODE_ID, sip_call_id: `${crypto.randomUUID()}@carrier.test`, ani: "+14155550100", ...body },
      headers: { Authorization: `Bearer ${env.NODE_TOKEN}` },
    }),
  event: (callId: string, event: Record<string, unknown>) =>
    request("POST", `/internal/calls/${callId}/events`, { body: event, headers: { Authorization: `Bearer ${env.NODE_TOKEN}` } }),
  get: (path: string) => request("GET", `/internal${path}`, { headers: { Authorization: `Bearer ${env.NODE_TOKEN}` } }),
  post: (path: string, body: unknown) =>
    request("POST", `/internal${path}`, { body, headers: { Authorization: `Bearer ${env.NODE_TOKEN}` } }),
};

/** The call row as D1 holds it. */
export const callRow = (id: string) => env.DB.prepare("SELECT * FROM calls WHERE id = ?").bind(id).first<Record<string, any>>();
