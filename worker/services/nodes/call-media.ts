// A call's file from its SIP node (PUT /internal/calls/{call_id}/media/{name}, worker/internal/
// media-upload.ts): a recording, one media leg's capture or the SIP log, sent when the call ends.
// The body streams into R2 (never held in memory) under calls/{customer_id}/{call_id}/{name};
// then the call row points at a recording or capture (the SIP log's key is derived from the call,
// so nothing is written for it). A call whose record has not reached D1 yet (it follows the
// ledger's outbox) is taken all the same when the ledger named by the upload knows it. Storing
// again overwrites the object and changes nothing else, so a node may retry freely. Only the node
// carrying the call may store its files (node-identity.ts, mayActForNode): the node the call's
// record names, or the ledger's live call; a call with no node recorded takes the uploading node
// as its own.
import { and, eq, isNull } from "drizzle-orm";
import type { z } from "zod";
import { calls } from "../../../schema/calls.ts";
import { MEDIA_CONTENT_TYPES, type MediaName, type MediaUploadResponse } from "../../../schema/node-api.ts";
import { mediaKey } from "../../lib/media-keys.ts";
import { recordStoredMedia } from "../calls/stored-media.ts";
import type { Services } from "../context.ts";
import { NotFound, Refused } from "../errors.ts";
import { requireRecordedNode } from "./node-identity.ts";

export type CallMediaUpload = {
  callId: string;
  name: MediaName;
  /** The file; `length` bytes (R2 needs a known length to take a stream). */
  body: ReadableStream<Uint8Array> | null;
  length: number;
  /** The account whose ledger may know a call not yet in D1. */
  customerId?: string | undefined;
  /** The uploading node (X-Node-Id), null when it names none. */
  node: string | null;
};

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export async function storeCallMedia(s: Services, upload: CallMediaUpload): Promise<z.infer<typeof MediaUploadResponse>> {
  const { callId, name, customerId, node } = upload;
  const call = await s.db
    .select({ id: calls.id, customerId: calls.customerId, nodeId: calls.nodeId })
    .from(calls)
    .where(eq(calls.id, callId))
    .get();
  if (call) {
    requireRecordedNode(s.config, node, await recordedNode(s, call, node), "call");
    const key = mediaKey(call.customerId, call.id, name);
    const object = await streamToR2(s.media, key, upload);
    await recordStoredMedia(s, call.id, name, key);
    return { key, size: object.size };
  }
  // The ledger has the call but its record is still on its way to D1: the file is stored now, and
  // what it changes in the call's record follows the record through the ledger's outbox.
  if (!customerId || !UUID.test(customerId) || !(await s.ledger(customerId).knowsCall(callId))) throw new NotFound("Call not found");
  // A live call names its node; an ended one whose record is on its way is taken as it comes.
  requireRecordedNode(s.config, node, (await s.ledger(customerId).liveCall(callId))?.nodeId ?? null, "call");
  const key = mediaKey(customerId, callId, name);
  const object = await streamToR2(s.media, key, upload);
  await s.ledger(customerId).noteMedia({ callId, name, key });
  return { key, size: object.size };
}

/** The call's node; a call with none recorded takes `node` (one conditional update: of two racing, one wins). */
async function recordedNode(s: Services, call: { id: string; nodeId: string | null }, node: string | null): Promise<string | null> {
  if (call.nodeId !== null || node === null) return call.nodeId;
  await s.db
    .update(calls)
    .set({ nodeId: node })
    .where(and(eq(calls.id, call.id), isNull(calls.nodeId)));
  const row = await s.db.select({ nodeId: calls.nodeId }).from(calls).where(eq(calls.id, call.id)).get();
  return row?.nodeId ?? null;
}

/**
 * Pipes the body into R2 through a stream of the declared length. The bytes are counted on the
 * way, so a body shorter or longer than its Content-Length is told apart from a failing bucket
 * (Refused rather than a failure); either way the put fails and nothing is stored.
 */
async function streamToR2(bucket: R2Bucket, key: string, upload: Pick<CallMediaUpload, "name" | "body" | "length">) {
  const { length } = upload;
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
  const body = upload.body ?? new ReadableStream<Uint8Array>({ start: (c) => c.close() });
  const pump = body
    .pipeThrough(counted)
    .pipeTo(writable)
    .catch(() => {});
  try {
    const object = await bucket.put(key, readable, { httpMetadata: { contentType: MEDIA_CONTENT_TYPES[upload.name] } });
    await pump;
    return object!;
  } catch (err) {
    await pump;
    if (mismatch) throw new Refused("The body does not match its Content-Length");
    throw err;
  }
}
