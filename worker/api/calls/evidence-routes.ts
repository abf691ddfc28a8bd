// A call's evidence: the bundle (zip with a SHA-256 manifest) and the PDF report. Both count
// against the account's export budget (429 too_many_exports with Retry-After past it).
import { createRoute } from "@hono/zod-openapi";
import { CallIdParam } from "../../resources/calls.ts";
import { callExport, callReport } from "../../services/calls/evidence.ts";
import { authenticated } from "../auth/access.ts";
import type { Api } from "../context.ts";
import { binaryBody, errors } from "../responses.ts";
import { fileResponse } from "./file-response.ts";

const tags = ["Calls"];
const THROTTLED =
  "Exports and reports together are limited per account (CALL_EXPORT_LIMIT per CALL_EXPORT_WINDOW_SEC, 30 per 10 minutes by default); " +
  "past that the answer is 429 too_many_exports with Retry-After.";

const exportRoute = createRoute({
  method: "get",
  path: "/calls/{call_id}/export",
  tags,
  summary: "The call's evidence bundle: a zip of the record, verdict, transcript, SIP log, recording and captures",
  description:
    "Entries: call.json, analysis.json and transcript.json (when the call has them), sip-log.json and sip-log.txt (when the " +
    "SIP ladder was kept), recording.wav, caller.pcap and callee.pcap (when stored), and manifest.json last, listing every " +
    "other entry with its size and SHA-256. The archive is streamed, entries stored uncompressed. " +
    THROTTLED,
  ...authenticated,
  request: { params: CallIdParam },
  responses: { 200: binaryBody("The evidence bundle", "application/zip"), ...errors(401, 404, 429) },
});

const reportRoute = createRoute({
  method: "get",
  path: "/calls/{call_id}/report.pdf",
  tags,
  summary: "A PDF report of the call for a fraud analyst",
  description:
    "Verdict, probability, recommendation and red flags; the call's facts, timing and outcome; quality; a transcript excerpt " +
    "with times and speakers; the SHA-256 of the recording and captures (the same as in the export's manifest). " +
    THROTTLED,
  ...authenticated,
  request: { params: CallIdParam },
  responses: { 200: binaryBody("The report", "application/pdf"), ...errors(401, 404, 429) },
});

export function registerCallEvidence(api: Api) {
  api.openapi(exportRoute, async (c) => fileResponse(await callExport(c.var.services, c.var.principal, c.req.valid("param").call_id)));
  api.openapi(reportRoute, async (c) => fileResponse(await callReport(c.var.services, c.var.principal, c.req.valid("param").call_id)));
}
