// A call's files (recording, captures, evidence bundle, report) as HTTP answers.
import type { MediaFile } from "../../services/calls/media.ts";

/** Media never sits in a shared cache, and a token in the address never leaves in a Referer. */
const PRIVATE = { "Cache-Control": "private, no-store", "Referrer-Policy": "no-referrer", "X-Content-Type-Options": "nosniff" };

/** A media file as an HTTP answer: 206 with Content-Range for a part, 200 for the whole. */
export function fileResponse(file: MediaFile, extra: Record<string, string> = {}): Response {
  const headers: Record<string, string> = {
    ...PRIVATE,
    ...extra,
    "Content-Type": file.contentType,
    "Content-Disposition": `${file.disposition}; filename="${file.filename}"`,
  };
  if (file.size !== null) headers["Content-Length"] = String(file.size);
  if (file.etag) headers.ETag = file.etag;
  if (!file.part) return new Response(file.body, { status: 200, headers });
  const { offset, length, of } = file.part;
  headers["Content-Range"] = `bytes ${offset}-${offset + length - 1}/${of}`;
  return new Response(file.body, { status: 206, headers });
}
