// Test calls as the tests play them: a fake SIP node on the NodeHub's socket (fake-node.ts), and
// a number verified the way an owner verifies one (the code comes in the node's originate).
import { expect } from "vitest";
import type { Session } from "./fixtures.ts";
import { eventually } from "./ledger-fixtures.ts";

import type { Command, FakeNode } from "./fake-node.ts";

export { connectNode, type Command, type FakeNode } from "./fake-node.ts";

/** Polls GET /customer/test-calls/{id} until its status is one of `statuses`. */
export async function untilStatus(owner: Session, id: string, ...statuses: string[]) {
  return eventually(
    async () => {
      const res = await owner.client.get(`/api/customer/test-calls/${id}`);
      return statuses.includes(res.body.status) ? res.body : null;
    },
    8_000,
    `test call ${id} reaching ${statuses.join(" or ")}`,
  );
}

/** Waits until the node was sent a command matching `match`. */
export const untilSent = (node: FakeNode, match: (c: Command) => boolean) =>
  eventually(async () => node.seen.find(match), 8_000, "the command reaching the node");

/**
 * Adds `number` to the owner's verified numbers and enters the code the platform's verification
 * call spoke (read from the originate the node was sent). The account needs a default destination.
 */
export async function verifyNumber(owner: Session, node: FakeNode, number: string) {
  const before = node.seen.length;
  const added = await owner.client.post("/api/customer/verified-numbers", { number });
  expect(added.status, JSON.stringify(added.body)).toBe(201);
  const originate = await untilSent(
    node,
    (c) => node.seen.indexOf(c) >= before && c.type === "originate" && c.speech === "verification_code" && c.number === number,
  );
  const verified = await owner.client.post(`/api/customer/verified-numbers/${added.body.id}/verify`, { code: originate.code });
  expect(verified.status, JSON.stringify(verified.body)).toBe(200);
  return verified.body;
}

/** A number no other test uses (per-number limits and verification are global). */
export const uniqueNumber = () => `+1415${String(crypto.getRandomValues(new Uint32Array(1))[0]! % 10_000_000).padStart(7, "0")}`;
