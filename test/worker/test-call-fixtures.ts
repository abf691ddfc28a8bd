// Test calls as the tests play them: a fake SIP node on the NodeHub's socket (the outside world's
// edge: it answers the Worker's commands as a node would, and keeps what it was sent), and a
// number verified the way an owner verifies one (the code comes in the node's originate).
import { env } from "cloudflare:test";
import { exports } from "cloudflare:workers";
import { expect } from "vitest";
import { ORIGIN } from "./client.ts";
import type { Session } from "./fixtures.ts";
import { eventually } from "./ledger-fixtures.ts";

export type Command = Record<string, any> & { type: string };
export type FakeNode = { seen: Command[]; close(): void };

/** Connects a fake SIP node that answers each command with `answer(command)`, or stays silent on null. */
export async function connectNode(
  nodeId: string,
  answer: (command: Command) => Record<string, unknown> | null = () => ({ ok: true, result: {} }),
): Promise<FakeNode> {
  const res = await exports.default.fetch(
    new Request(`${ORIGIN}/internal/hub?node_id=${nodeId}`, {
      headers: { Upgrade: "websocket", Authorization: `Bearer ${env.NODE_TOKEN}` },
    }),
  );
  expect(res.status).toBe(101);
  const ws = res.webSocket!;
  ws.accept();
  const seen: Command[] = [];
  ws.addEventListener("message", (event) => {
    const { id, command } = JSON.parse(String(event.data));
    seen.push(command);
    const reply = answer(command);
    if (reply) ws.send(JSON.stringify({ id, ...reply }));
  });
  return { seen, close: () => ws.close(1000, "test over") };
}

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
