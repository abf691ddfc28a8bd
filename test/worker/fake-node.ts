// A fake SIP node on the NodeHub's socket: the outside world's edge for the Worker's node
// commands (OPTIONS checks, stats, originate...). It answers each command as a node would and
// keeps what it was sent.
import { env } from "cloudflare:test";
import { exports } from "cloudflare:workers";
import { expect } from "vitest";
import { ORIGIN } from "./client.ts";

export type Command = Record<string, any> & { type: string };
export type FakeNode = { seen: Command[]; close(): void };

const open: FakeNode[] = [];

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
  const node = { seen, close: () => ws.close(1000, "test over") };
  open.push(node);
  return node;
}

/** Disconnects every fake node still connected (an afterEach). */
export function closeNodes(): void {
  for (const node of open.splice(0)) node.close();
}
