// Which node may report a test call's progress: the one placing it (test_calls.node_id, recorded
// when a node took the originate command, or by the node's first report or admission). A test call
// with no node recorded yet takes the reporting node as its own.
import { and, eq, isNull } from "drizzle-orm";
import { testCalls } from "../../../schema/test-calls.ts";
import type { Services } from "../context.ts";
import { requireRecordedNode } from "./node-identity.ts";

/** Forbidden when `requester` is not the node placing the test call (node-identity.ts, mayActForNode); an unknown test call passes (its 404 follows). */
export async function requireTestCallNode(s: Services, testCallId: string, requester: string): Promise<void> {
  const nodeOf = async () =>
    (await s.db.select({ nodeId: testCalls.nodeId }).from(testCalls).where(eq(testCalls.id, testCallId)).get())?.nodeId;
  let recorded = await nodeOf();
  if (recorded === undefined) return;
  if (recorded === null) {
    // One conditional update: of two nodes racing, one becomes the test call's.
    await s.db
      .update(testCalls)
      .set({ nodeId: requester })
      .where(and(eq(testCalls.id, testCallId), isNull(testCalls.nodeId)));
    recorded = (await nodeOf()) ?? null;
  }
  requireRecordedNode(s.config, requester, recorded, "test call");
}
