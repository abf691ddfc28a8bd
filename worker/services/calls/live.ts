// The calls that are up now (GET /customer/live-calls): read from the account's ledger, which
// admits and ends them, not from D1, which has each call's record a moment later.
import type { LiveCall } from "../../../durable-objects/call-ledger/call-ledger.ts";
import { portsOf } from "../accounts/accounts.ts";
import type { Services } from "../context.ts";
import type { Principal } from "../identity/principal.ts";

const seconds = (fromIso: string, toMs: number) => Math.max(0, Math.floor((toMs - Date.parse(fromIso)) / 1000));

export function liveCallOut(call: LiveCall, now = Date.now()) {
  const r = call.record as Record<string, unknown> & { startedAt: string };
  const text = (key: string) => (r[key] as string | null | undefined) ?? null;
  const cap = (r.maxCallSeconds as number | null | undefined) ?? null;
  return {
    id: call.callId,
    status: call.status,
    ani: text("ani"),
    dialed: text("dialed"),
    external_id: text("externalId"),
    external_name: text("externalName"),
    sub_customer: text("subCustomer"),
    dest_host: text("destHost") ?? "",
    dest_port: (r.destPort as number | undefined) ?? 0,
    dest_transport: text("destTransport") ?? "udp",
    dest_kind: text("destKind") ?? "sip",
    dest_provider: text("destProvider"),
    routed_destination_label: text("routedDestinationLabel"),
    route_prefix: text("routePrefix"),
    media_node: call.nodeId,
    started_at: r.startedAt,
    answered_at: call.answeredAt,
    elapsed_sec: seconds(r.startedAt, now),
    max_call_seconds: cap,
    remaining_sec: cap === null ? null : call.answeredAt ? Math.max(0, cap - seconds(call.answeredAt, now)) : cap,
  };
}

export async function liveCallsOf(s: Services, { customer }: Principal) {
  const [calls, ports] = await Promise.all([s.ledger(customer.id).liveCalls(), portsOf(s.db, customer)]);
  const now = Date.now();
  return {
    items: calls.map((call) => liveCallOut(call, now)),
    active_count: calls.filter((call) => call.status === "active").length,
    ports,
    ports_in_use: calls.length,
  };
}
