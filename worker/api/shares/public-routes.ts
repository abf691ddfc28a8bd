// The public side of a share link (no account credential): meta, unlock with the password, and
// the payload and recording under the view token unlock returns.
import { createRoute, z } from "@hono/zod-openapi";
import { parseByteRange } from "../../lib/http-range.ts";
import {
  PublicShareSchema,
  ShareMetaSchema,
  ShareTokenParam,
  UnlockResultSchema,
  UnlockSchema,
  ViewTokenHeader,
  ViewTokenQuery,
} from "../../resources/shares.ts";
import { shareMeta, shareRecording, unlockShare, viewShare } from "../../services/support/share-views.ts";
import { clientIp } from "../../http/client-ip.ts";
import { fileResponse } from "../calls/file-response.ts";
import type { Api } from "../context.ts";
import { binaryBody, errors, jsonBody, jsonRequest } from "../responses.ts";

const tags = ["Sharing"];
const viewToken = [{ ShareViewToken: [] }, { ShareViewTokenQuery: [] }] as Record<string, string[]>[];

const metaRoute = createRoute({
  method: "get",
  path: "/public/shares/{token}/meta",
  tags,
  summary: "Whether a share link opens (exists, revoked, expired) and who shared it",
  security: [],
  request: { params: ShareTokenParam },
  responses: { 200: jsonBody(ShareMetaSchema, "Share meta") },
});

const unlockRoute = createRoute({
  method: "post",
  path: "/public/shares/{token}/unlock",
  tags,
  summary: "Trade the link's password for a short-lived view token good for this link only",
  description: "Attempts are limited per link and per source address (429 too_many_attempts with Retry-After).",
  security: [],
  request: { params: ShareTokenParam, ...jsonRequest(UnlockSchema) },
  responses: { 200: jsonBody(UnlockResultSchema, "Unlock result"), ...errors(401, 422, 429) },
});

const viewRoute = createRoute({
  method: "get",
  path: "/public/shares/{token}",
  tags,
  summary: "The shared call: its facts, verdict, transcript and whether there is a recording",
  security: viewToken,
  request: { params: ShareTokenParam, query: ViewTokenQuery, headers: ViewTokenHeader },
  responses: { 200: jsonBody(PublicShareSchema, "Public payload"), ...errors(401, 404) },
});

const recordingRoute = createRoute({
  method: "get",
  path: "/public/shares/{token}/recording",
  tags,
  summary: "The shared call's recording (WAV), whole or one byte range",
  security: viewToken,
  request: {
    params: ShareTokenParam,
    query: ViewTokenQuery,
    headers: ViewTokenHeader.extend({ range: z.string().optional().openapi({ description: "One byte range", example: "bytes=0-1023" }) }),
  },
  responses: {
    200: binaryBody("The recording", "audio/wav"),
    206: binaryBody("The requested part of the recording", "audio/wav"),
    ...errors(401, 404, 416),
  },
});

const presented = (header: { "x-share-token"?: string | undefined }, query: { t?: string | undefined }) =>
  header["x-share-token"] || query.t || undefined;

export function registerPublicShares(api: Api) {
  api.openAPIRegistry.registerComponent("securitySchemes", "ShareViewToken", { type: "apiKey", in: "header", name: "X-Share-Token" });
  api.openAPIRegistry.registerComponent("securitySchemes", "ShareViewTokenQuery", {
    type: "apiKey",
    in: "query",
    name: "t",
    description: "The view token of a share link, where a header cannot be sent (an audio element)",
  });
  api.openapi(metaRoute, async (c) => c.json(await shareMeta(c.var.services, c.req.valid("param").token), 200));
  api.openapi(unlockRoute, async (c) =>
    c.json(await unlockShare(c.var.services, c.req.valid("param").token, c.req.valid("json").password, clientIp(c)), 200),
  );
  api.openapi(viewRoute, async (c) => {
    const token = presented(c.req.valid("header"), c.req.valid("query"));
    return c.json(await viewShare(c.var.services, c.req.valid("param").token, token), 200);
  });
  api.openapi(recordingRoute, async (c) => {
    const header = c.req.valid("header");
    const pickRange = header.range ? (size: number) => parseByteRange(header.range!, size) : undefined;
    const file = await shareRecording(c.var.services, c.req.valid("param").token, presented(header, c.req.valid("query")), pickRange);
    return fileResponse(file, { "Accept-Ranges": "bytes" });
  });
}
