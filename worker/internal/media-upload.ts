// PUT /internal/calls/{call_id}/media/{name}: a SIP node uploads a call's recording, one media
// leg's capture or its SIP log when the call ends. The name and the declared length are checked
// here; the body streams into R2 through the service (worker/services/nodes/call-media.ts), which
// says where it goes and who may send it.
import type { z } from "zod";
import { MAX_MEDIA_BYTES, MediaName, type MediaUploadResponse } from "../../schema/node-api.ts";
import { ApiError, badRequest, invalidField } from "../lib/errors.ts";
import type { Services } from "../services/context.ts";
import { storeCallMedia } from "../services/nodes/call-media.ts";

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
  s: Services,
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
  const length = declaredLength(request);
  return storeCallMedia(s, { callId, name: parsed.data, body: request.body, length, customerId, node });
}
