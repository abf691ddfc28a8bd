import { createRoute, z } from "@hono/zod-openapi";
import { CallListQuery, CallListSchema, EntityCountSchema, KeywordCountSchema, TermCountQuery } from "../../resources/call-list.ts";
import {
  AnalysisSchema,
  CallDetailSchema,
  CallIdParam,
  InspectSchema,
  SipLogSchema,
  TranscriptSchema,
  TransferRequestSchema,
  TransferSchema,
} from "../../resources/calls.ts";
import { inspectCall } from "../../services/calls/inspect.ts";
import { getCallAnalysis, getCallSipLog, getCallTranscript } from "../../services/calls/records.ts";
import { countEntities, countKeywords, listCalls } from "../../services/calls/search.ts";
import { getCall, transferCall } from "../../services/calls/calls.ts";
import { authenticated } from "../auth/access.ts";
import type { Api } from "../context.ts";
import { errors, jsonBody, jsonRequest } from "../responses.ts";

const tags = ["Calls"];

const listRoute = createRoute({
  method: "get",
  path: "/calls",
  tags,
  summary: "Calls matching every filter given, newest first unless `sort` says otherwise",
  description:
    "Sort keys: -started_at (default), started_at, -probability, probability, -duration_sec, duration_sec. " +
    "Ties go newest first; calls without the value (no verdict yet, not ended) come last in both directions.",
  ...authenticated,
  request: { query: CallListQuery },
  responses: { 200: jsonBody(CallListSchema, "Call list"), ...errors(401, 422) },
});

const entitiesRoute = createRoute({
  method: "get",
  path: "/calls/entities",
  tags,
  summary: "The entities callers claimed (a bank, an agency), by how many calls in the last `days` claimed each",
  ...authenticated,
  request: { query: TermCountQuery },
  responses: { 200: jsonBody(z.array(EntityCountSchema), "Entity counts, most frequent first"), ...errors(401, 422) },
});

const keywordsRoute = createRoute({
  method: "get",
  path: "/calls/keywords",
  tags,
  summary: "The verdicts' keywords, by how many calls in the last `days` had each",
  ...authenticated,
  request: { query: TermCountQuery },
  responses: { 200: jsonBody(z.array(KeywordCountSchema), "Keyword counts, most frequent first"), ...errors(401, 422) },
});

const getRoute = createRoute({
  method: "get",
  path: "/calls/{call_id}",
  tags,
  summary: "One call with everything the signalling, billing and analysis know",
  ...authenticated,
  request: { params: CallIdParam },
  responses: { 200: jsonBody(CallDetailSchema, "Call detail"), ...errors(401, 404, 422) },
});

const analysisRoute = createRoute({
  method: "get",
  path: "/calls/{call_id}/analysis",
  tags,
  summary: "The call's current verdict (its newest analysis)",
  ...authenticated,
  request: { params: CallIdParam },
  responses: { 200: jsonBody(AnalysisSchema, "Analysis"), ...errors(401, 404, 422) },
});

const transcriptRoute = createRoute({
  method: "get",
  path: "/calls/{call_id}/transcript",
  tags,
  summary: "The call's transcript: its text and timed segments",
  ...authenticated,
  request: { params: CallIdParam },
  responses: { 200: jsonBody(TranscriptSchema, "Transcript"), ...errors(401, 404, 422) },
});

const sipLogRoute = createRoute({
  method: "get",
  path: "/calls/{call_id}/sip-log",
  tags,
  summary: "The call's SIP messages, and the same ladder as plain text",
  ...authenticated,
  request: { params: CallIdParam },
  responses: { 200: jsonBody(SipLogSchema, "SIP log"), ...errors(401, 404, 422) },
});

const inspectRoute = createRoute({
  method: "get",
  path: "/calls/{call_id}/inspect",
  tags,
  summary: "The call inspector: live media and SIP ladder while the call is up (poll every 2 s), the record after",
  description:
    "While the call is up (`live`), the SIP node carrying it answers its media legs and the SIP messages it has " +
    "recorded so far, so `ladder` grows from one poll to the next (up to its first 200 messages); a node " +
    "that cannot answer in time leaves `media` null and `ladder` as recorded. After the call everything comes from " +
    "the record, the ladder being the one the node reported with the call's end.",
  ...authenticated,
  request: { params: CallIdParam },
  responses: { 200: jsonBody(InspectSchema, "Inspect document"), ...errors(401, 404, 422) },
});

const transferRoute = createRoute({
  method: "post",
  path: "/calls/{call_id}/transfer",
  tags,
  summary: "Transfer an answered call to another number (platform bridge or SIP REFER, per the destination)",
  ...authenticated,
  request: { params: CallIdParam, ...jsonRequest(TransferRequestSchema) },
  responses: { 202: jsonBody(TransferSchema, "Transfer started"), ...errors(401, 404, 409, 422, 503) },
});

export function registerCalls(api: Api) {
  api.openapi(listRoute, async (c) => c.json(await listCalls(c.var.services, c.var.principal, c.req.valid("query")), 200));
  // Before /calls/{call_id}, which would otherwise take "entities" for a call id.
  api.openapi(entitiesRoute, async (c) => c.json(await countEntities(c.var.services, c.var.principal, c.req.valid("query")), 200));
  api.openapi(keywordsRoute, async (c) => c.json(await countKeywords(c.var.services, c.var.principal, c.req.valid("query")), 200));
  api.openapi(getRoute, async (c) => c.json(await getCall(c.var.services, c.var.principal, c.req.valid("param").call_id), 200));
  api.openapi(analysisRoute, async (c) =>
    c.json(await getCallAnalysis(c.var.services, c.var.principal, c.req.valid("param").call_id), 200),
  );
  api.openapi(transcriptRoute, async (c) =>
    c.json(await getCallTranscript(c.var.services, c.var.principal, c.req.valid("param").call_id), 200),
  );
  api.openapi(sipLogRoute, async (c) => c.json(await getCallSipLog(c.var.services, c.var.principal, c.req.valid("param").call_id), 200));
  api.openapi(inspectRoute, async (c) => c.json(await inspectCall(c.var.services, c.var.principal, c.req.valid("param").call_id), 200));
  api.openapi(transferRoute, async (c) => {
    const { call_id } = c.req.valid("param");
    return c.json(await transferCall(c.var.services, c.var.principal, call_id, c.req.valid("json").target), 202);
  });
}
