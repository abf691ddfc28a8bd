// Fixtures of the trunk side of an account: whitelist entries, routing rules, destinations, and
// fresh address blocks. The TrunkRegistry is one global instance shared by every test, so each
// test takes address space nobody else has taken rather than a well-known range.
import { env } from "cloudflare:test";
import { expect } from "vitest";
import type { Session } from "./fixtures.ts";

/** The global TrunkRegistry, as the Worker reaches it. */
export const registry = () => env.TRUNK_REGISTRY.get(env.TRUNK_REGISTRY.idFromName("global"));

/** POST /api/customer/ips; asserts 201 and returns the entry. */
export async function addWhitelistEntry(session: Session, cidr: string, overrides: Record<string, unknown> = {}) {
  const res = await session.client.post("/api/customer/ips", { cidr, ...overrides });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body;
}

/** POST /api/customer/routing-rules; asserts 201 and returns the rule. */
export async function addRoutingRule(session: Session, prefix: string, destinationId: string, overrides: Record<string, unknown> = {}) {
  const res = await session.client.post("/api/customer/routing-rules", { prefix, destination_id: destinationId, ...overrides });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body;
}

/**
 * A destination row written straight to D1 (columns of schema/network.ts, snake_case overrides),
 * until tests can create destinations through /api/customer/destinations.
 */
export async function insertDestination(session: Session, overrides: Record<string, unknown> = {}) {
  const now = new Date().toISOString();
  const row: Record<string, unknown> = {
    id: crypto.randomUUID(),
    customer_id: session.account.id,
    host: "sbc.carrier.test",
    port: 5060,
    transport: "udp",
    is_default: 0,
    label: "Test SBC",
    kind: "sip",
    created_at: now,
    updated_at: now,
    ...overrides,
  };
  const columns = Object.keys(row);
  await env.DB.prepare(`INSERT INTO destinations (${columns.join(", ")}) VALUES (${columns.map(() => "?").join(", ")})`)
    .bind(...columns.map((c) => row[c] ?? null))
    .run();
  return row as { id: string } & Record<string, unknown>;
}

// Fresh address space: a random start per test file, then consecutive blocks. IPv4 /24s come from
// 10.0.0.0/9, /16s from 10.128.0.0/9, IPv6 /48s from the unique-local fd00::/8.
const v4Start = Math.floor(Math.random() * 128 * 256);
let v4Count = 0;
const v4WideStart = Math.floor(Math.random() * 128);
let v4WideCount = 0;
const v6Start = Math.floor(Math.random() * 0xffffff);
let v6Count = 0;

/** A /24 nobody holds: `base` is the first three octets ("10.37.201"). */
export function v4Block(): { base: string; cidr: string } {
  const n = (v4Start + v4Count++) % (128 * 256);
  const base = `10.${n >> 8}.${n & 255}`;
  return { base, cidr: `${base}.0/24` };
}

/** A /16 nobody holds (the widest IPv4 range accepted). */
export function v4Wide(): string {
  const n = 128 + ((v4WideStart + v4WideCount++) % 128);
  return `10.${n}.0.0/16`;
}

/** A /48 nobody holds: `base` is the first three groups ("fd12:3456:789a"). */
export function v6Block(): { base: string; cidr: string } {
  const n = (v6Start + v6Count++) % 0x1000000;
  const base = `fd${(n >> 16).toString(16).padStart(2, "0")}:${(n & 0xffff).toString(16)}:${(1 + Math.floor(Math.random() * 0xfffe)).toString(16)}`;
  return { base, cidr: `${base}::/48` };
}
