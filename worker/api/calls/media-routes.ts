// A call's media: the recording, a recording token for players without an Authorization
// header, the packet captures and the SIP ladder as text (both also behind the short-lived links
// the MCP tool report_links gives, which need no header).
import { createRoute, z } from "@hono/zod-openapi";
import { parseByteRange } from "../../lib/http-range.ts";
import { CallIdParam, MediaLinkQuery, MediaTokenSchema, RecordingQuery } from "../../resources/calls.ts";
import { captures, recording, recordingToken, sipLadder } from "../../services/calls/media.ts";
import { authenticated, authenticatedOrMediaToken, authenticatedOrRecordingToken } from "../auth/access.ts";
import type { Api } from "../context.ts";
import { binaryBody, errors, jsonBody } from "../responses.ts";
import { fileResponse } from "./file-response.ts";

const tags = ["Calls"];

const recordingTokenRoute = createRoute({
  method: "get",
  path: "/calls/{call_id}/recording-token",
  tags,
  summary: "A short-lived link to the recording, for players that cannot send an Authorization header",
  description:
    "The link carries a signed token as `t`, good for this call's recording only and for `expires_in` seconds. " +
    "It is not an access token and is accepted nowhere else.",
  ...authenticated,
  request: { params: CallIdParam },
  responses: { 200: jsonBody(MediaTokenSchema, "Media token"), ...errors(401, 404) },
});

const recordingRoute = createRoute({
  method: "get",
  path: "/calls/{call_id}/recording",
  tags,
  summary: "The call's recording (WAV), whole or one byte range",
  description:
    "Authorised by a bearer token or an API key, or by a recording token in `t` (then no Authorization header is needed). " +
    "A single `Range: bytes=` request answers 206 with that part, so players can seek.",
  ...authenticatedOrRecordingToken,
  request: {
    params: CallIdParam,
    query: RecordingQuery,
    headers: z.object({
      range: z.string().optional().openapi({ description: "One byte range, e.g. bytes=0-1023", example: "bytes=0-1023" }),
    }),
  },
  responses: {
    200: binaryBody("The recording", "audio/wav"),
    206: {
      ...binaryBody("The requested part of the recording", "audio/wav"),
      headers: { "Content-Range": { description: "bytes <first>-<last>/<size>", schema: { type: "string" } } },
    },
    ...errors(401, 404, 416),
  },
});

const pcapRoute = createRoute({
  method: "get",
  path: "/calls/{call_id}/pcap",
  tags,
  summary: "The packet capture: one media leg's pcap, or a zip of every leg's",
  description: "Authorised by a bearer token or an API key, or by a link token in `t` (from the MCP tool report_links).",
  ...authenticatedOrMediaToken("pcap"),
  request: { params: CallIdParam, query: MediaLinkQuery },
  responses: {
    200: binaryBody(
      "The capture file (application/vnd.tcpdump.pcap), or a zip holding caller.pcap and callee.pcap when there were several media legs",
      "application/vnd.tcpdump.pcap",
      "application/zip",
    ),
    ...errors(401, 404),
  },
});

const sipLadderRoute = createRoute({
  method: "get",
  path: "/calls/{call_id}/sip-ladder",
  tags,
  summary: "The call's SIP ladder as plain text (the `text` of /calls/{call_id}/sip-log)",
  description: "Authorised by a bearer token or an API key, or by a link token in `t` (from the MCP tool report_links).",
  ...authenticatedOrMediaToken("sip-ladder"),
  request: { params: CallIdParam, query: MediaLinkQuery },
  responses: { 200: binaryBody("The ladder, one block per SIP message", "text/plain"), ...errors(401, 404) },
});

export function registerCallMedia(api: Api) {
  api.openAPIRegistry.registerComponent("securitySchemes", "MediaLinkToken", {
    type: "apiKey",
    in: "query",
    name: "t",
    description: "A link token from the MCP tool report_links; good for the one file of the one call it was made for",
  });
  api.openapi(recordingTokenRoute, async (c) =>
    c.json(await recordingToken(c.var.services, c.var.principal, c.req.valid("param").call_id), 200),
  );
  api.openapi(recordingRoute, async (c) => {
    const range = c.req.valid("header").range;
    const pickRange = range ? (size: number) => parseByteRange(range, size) : undefined;
    const file = await recording(c.var.services, c.var.principal, c.req.valid("param").call_id, pickRange);
    return fileResponse(file, { "Accept-Ranges": "bytes" });
  });
  api.openapi(pcapRoute, async (c) => fileResponse(await captures(c.var.services, c.var.principal, c.req.valid("param").call_id)));
  api.openapi(sipLadderRoute, async (c) => fileResponse(await sipLadder(c.var.services, c.var.principal, c.req.valid("param").call_id)));
}
