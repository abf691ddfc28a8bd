// Destinations made the way a customer makes them, through POST /api/customer/destinations.
import { expect } from "vitest";
import type { Session } from "./fixtures.ts";

/**
 * POST /api/customer/destinations; asserts 201 and returns the destination. A SIP destination
 * gets the host sbc.carrier.test unless overridden; a voice_ai one keeps its provider's host.
 */
export async function addDestination(session: Session, overrides: Record<string, unknown> = {}) {
  const body = { ...(overrides.kind === "voice_ai" ? {} : { host: "sbc.carrier.test" }), ...overrides };
  const res = await session.client.post("/api/customer/destinations", body);
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body;
}
