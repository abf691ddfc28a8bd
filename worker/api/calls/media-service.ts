// A call's media as the customer gets it: the recording (whole or a byte range, with the
// account's credential or a short-lived recording token) and the captures (one pcap as it is,
// several in a zip). The files live in R2 under the keys the SIP node's uploads set on the call.
import { and, eq } from "drizzle-orm";
import { calls } from "../../../schema/calls.ts";
import { MEDIA_CONTENT_TYPES } from "../../../schema/node-api.ts";
import type { Bindings, Config } from "../../env.ts";
import type { Db } from "../../lib/db.ts";
import { ApiError, notFound } from "../../lib/errors.ts";
import { parseByteRange } from "../../lib/http-range.ts";
import { signMediaToken } from "../../lib/tokens.ts";
import { zipStream } from "../../lib/zip.ts";
import type { Principal } from "../auth/principal.ts";

type Deps = { env: Bindings; db: Db; config: Config };

const PCAP = MEDIA_CONTENT_TYPES["caller.pcap"];
const WAV = MEDIA_CONTENT_TYPES["recording.wav"];
/** Media never sits in a shared cache, and a token in the address never leaves in a Referer. */
const PRIVATE = { "Cache-Control": "private, no-store", "Referrer-Policy": "no-referrer", "X-Content-Type-Options": "nosniff" };

/** The account's own call, with where its media is; another account's call is 404. */
async function ownCall(db: Db, principal: Principal, callId: string) {
  const call = await db
    .select({
      id: calls.id,
      recordingWavPath: calls.recordingWavPath,
      recordingAvailable: calls.recordingAvailable,
      recordingPcapPaths: calls.recordingPcapPaths,
    })
    .from(calls)
    .where(and(eq(calls.id, callId), eq(calls.customerId, principal.customer.id)))
    .get();
  if (!call) throw notFound("Call not found");
  return call;
}

async function recordingKey(db: Db, principal: Principal, callId: string) {
  const call = await ownCall(db, principal, callId);
  if (!call.recordingAvailable || !call.recordingWavPath) throw notFound("No recording for this call");
  return { call, key: call.recordingWavPath };
}

/** A link a player can open without an Authorization header, good for this call's recording only. */
export async function recordingToken(deps: Deps, principal: Principal, callId: string, requestUrl: string) {
  const { call } = await recordingKey(deps.db, principal, callId);
  const ttl = deps.config.RECORDING_TOKEN_TTL_SEC;
  const token = await signMediaToken(
    { sub: principal.user.id, cid: principal.customer.id, call: call.id, imp: principal.impersonatedBy },
    deps.config.JWT_SECRET,
    ttl,
  );
  const url = new URL(`/api/calls/${call.id}/recording`, requestUrl);
  url.searchParams.set("t", token);
  return { url: url.toString(), expires_in: ttl };
}

/** The recording, whole (200) or one byte range (206) so players can seek. */
export async function recordingResponse(deps: Deps, principal: Principal, callId: string, rangeHeader: string | undefined) {
  const { call, key } = await recordingKey(deps.db, principal, callId);
  const headers: Record<string, string> = {
    ...PRIVATE,
    "Content-Type": WAV,
    "Content-Disposition": `inline; filename="call-${call.id}.wav"`,
    "Accept-Ranges": "bytes",
  };
  if (rangeHeader) {
    const head = await deps.env.MEDIA.head(key);
    if (!head) throw notFound("No recording for this call");
    const range = parseByteRange(rangeHeader, head.size);
    if (range === "unsatisfiable") {
      throw new ApiError(416, "Range Not Satisfiable", { "Content-Range": `bytes */${head.size}` });
    }
    if (range) {
      // The same object the head described, or nothing: a re-upload in between must not mix two files.
      const part = await deps.env.MEDIA.get(key, { range, onlyIf: { etagMatches: head.etag } });
      if (!part || !("body" in part)) throw notFound("No recording for this call");
      return new Response(part.body, {
        status: 206,
        headers: {
          ...headers,
          "Content-Length": String(range.length),
          "Content-Range": `bytes ${range.offset}-${range.offset + range.length - 1}/${part.size}`,
          ETag: part.httpEtag,
        },
      });
    }
  }
  const object = await deps.env.MEDIA.get(key);
  if (!object) throw notFound("No recording for this call");
  return new Response(object.body, {
    status: 200,
    headers: { ...headers, "Content-Length": String(object.size), ETag: object.httpEtag },
  });
}

const basename = (key: string) => key.slice(key.lastIndexOf("/") + 1);

/** The captures: one media leg's pcap as it is, several legs in one zip. */
export async function pcapResponse(deps: Deps, principal: Principal, callId: string) {
  const call = await ownCall(deps.db, principal, callId);
  const keys = call.recordingPcapPaths ?? [];
  const present = (await Promise.all(keys.map((key) => deps.env.MEDIA.head(key)))).filter((o) => o !== null);
  if (present.length === 0) throw notFound("No capture for this call");
  if (present.length === 1) {
    const object = await deps.env.MEDIA.get(present[0]!.key);
    if (!object) throw notFound("No capture for this call");
    return new Response(object.body, {
      status: 200,
      headers: {
        ...PRIVATE,
        "Content-Type": PCAP,
        "Content-Length": String(object.size),
        "Content-Disposition": `attachment; filename="call-${call.id}-${basename(object.key)}"`,
      },
    });
  }
  const body = zipStream(
    present.map((head) => ({
      name: basename(head.key),
      open: async () => {
        const object = await deps.env.MEDIA.get(head.key);
        if (!object) throw new Error(`capture ${head.key} went away while zipping`);
        return object.body;
      },
    })),
  );
  return new Response(body, {
    status: 200,
    headers: {
      ...PRIVATE,
      "Content-Type": "application/zip",
      "Content-Disposition": `attachment; filename="call-${call.id}-pcap.zip"`,
    },
  });
}
