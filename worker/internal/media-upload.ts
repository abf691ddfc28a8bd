// PUT /internal/calls/{call_id}/media/{name}: a SIP node uploads a call's recording, one media
// leg's capture or its SIP log when the call ends. The body streams into R2 (never held in memory)
// under calls/{customer_id}/{call_id}/{name}; then the call row points at a recording or capture
// (the SIP log's key is derived from the call, so nothing is written for it). A call whose record
// has not reached D1 yet (it follows the ledger's outbox) is taken all the same when the ledger
// named by ?customer_id= knows it. Uploading again overwrites the object and changes nothing
// else, so a node may retry freely. Only the node carrying the call may upload its files
// (node-auth.ts, mayActForNode): the node the call's record names, or the ledger's live call; a
// call with no node recorded takes the uploading node as its own.
import { and, eq, isNull } from "drizzle-orm";
import type { z } from "zod";
import { calls } from "../../schema/calls.ts";
import { MAX_MEDIA_BYTES, MEDIA_CONTENT_TYPES, MediaName, type MediaUploadResponse } from "../../schema/node-api.ts";
import type { Services } from "../services/context.ts";
import { recordStoredMedia } from "../services/calls/stored-media.ts";
import { ApiError, badRequest, invalidField, notFound } from "../lib/errors.ts";
import { mediaKey } from "../lib/media-keys.ts";
import { requireRecordedNode } from "./node-auth.ts";

/** The declared body length: required (R2 needs a known length to take a stream), and bounded. */
function declaredLength(request: Request): number {
  const header = request.headers.get("Content-Length");
  if (header === null) throw new ApiError(411, "Content-Length required");
  if (!/^\d+$/.test(header.trim())) throw badRequest("Content-Length must be a number of bytes");
  const length = Number(header.trim());
  if (length > MAX_MEDIA_BYTES) throw new ApiError(413, `The largest upload is ${MAX_MEDIA_BYTES} bytes`);
  if (length === 0) throw invalidField(["body"], "The body is empty", "missing");
  return length;
}

export async function uploadMedia(
  deps: Services,
  callId: string,
  rawName: string,
  request: Request,
  customerId?: string,
  /** The uploading node (X-Node-Id), null when it names none. */
  node: string | null = null,
): Promise<z.infer<typeof MediaUploadResponse>> {
  const parsed = MediaName.safeParse(rawName);
  if (!parsed.success) {
    const names = MediaName.options.map((n) => `'${n}'`).join(", ");
    throw invalidField(["path", "name"], `name must be one of ${names}`, "enum");
  }
  const name = parsed.data;
  const length = declaredLength(request);
  const call = await deps.db
    .select({ id: calls.id, customerId: calls.customerId, nodeId: calls.nodeId })
    .from(calls)
    .where(eq(calls.id, callId))
    .get();
  if (call) {
    requireRecordedNode(deps.config, node, await recordedNode(deps, call, node), "call");
    const key = mediaKey(call.customerId, call.id, name);
    const object = await streamToR2(deps.media, key, request, length, MEDIA_CONTENT_TYPES[name]);
    await recordStoredMedia(deps, call.id, name, key);
    return { key, size: object.size };
  }
  // The ledger has the call but its record is still on its way to D1: the file is stored now, and
  // what it changes in the call's record follows the record through the ledger's outbox.
  if (!customerId || !UUID.test(customerId) || !(await deps.ledger(customerId).knowsCall(callId))) throw notFound("Call not found");
  // A live call names its node; an ended one whose record is on its way is taken as it comes.
  requireRecordedNode(deps.config, node, (await deps.ledger(customerId).liveCall(callId))?.nodeId ?? null, "call");
  const key = mediaKey(customerId, callId, name);
  const object = await streamToR2(deps.media, key, request, length, MEDIA_CONTENT_TYPES[name]);
  await deps.ledger(customerId).noteMedia({ callId, name, key });
  return { key, size: object.size };
}

/** The call's node; a call with none recorded takes `node` (one conditional update: of two racing, one wins). */
async function recordedNode(deps: Services, call: { id: string; nodeId: string | null }, node: string | null): Promise<string | null> {
  if (call.nodeId !== null || node === null) return call.nodeId;
  await deps.db
    .update(calls)
    .set({ nodeId: node })
    .where(and(eq(calls.id, call.id), isNull(calls.nodeId)));
  const row = await deps.db.select({ nodeId: calls.nodeId }).from(calls).where(eq(calls.id, call.id)).get();
  return row?.nodeId ?? null;
}

/**
 * Pipes the request body into R2 through a stream of the declared length. The bytes are counted
 * on the way, so a body shorter or longer than its Content-Length is told apart from a failing
 * bucket (400 rather than 500); either way the put fails and nothing is stored.
 */
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

async function streamToR2(bucket: R2Bucket, key: string, request: Request, length: number, contentType: string) {
  let seen = 0;
  let mismatch = false;
  const fail = () => {
    mismatch = true;
    return new Error("body length differs from Content-Length");
  };
  const counted = new TransformStream<Uint8Array, Uint8Array>({
    transform(chunk, controller) {
      seen += chunk.byteLength;
      if (seen > length) throw fail();
      controller.enqueue(chunk);
    },
    flush() {
      if (seen !== length) throw fail();
    },
  });
  const { readable, writable } = new FixedLengthStream(length);
  const body = request.body ?? new ReadableStream<Uint8Array>({ start: (c) => c.close() });
  const pump = body
    .pipeThrough(counted)
    .pipeTo(writable)
    .catch(() => {});
  try {
    const object = await bucket.put(key, readable, { httpMetadata: { contentType } });
    await pump;
    return object!;
  } catch (err) {
    await pump;
    if (mismatch) throw badRequest("The body does not match its Content-Length");
    throw err;
  }
}
