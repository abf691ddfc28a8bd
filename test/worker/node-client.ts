// The SIP node's side of the internal node API, as the tests play it.
import { env } from "cloudflare:test";
import { exports } from "cloudflare:workers";
import { ORIGIN, request } from "./client.ts";

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
