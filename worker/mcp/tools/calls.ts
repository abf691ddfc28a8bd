// Calls: the list with its filters, one call with its verdict, the transcript, and the links a
// person sends on (the PDF report, the evidence bundle, the call's share links, and short-lived
// links to the recording, packet capture and SIP ladder that open without a header).
import { z } from "@hono/zod-openapi";
import { CALL_SORTS, CallListQuery, MAX_KEYWORD_FILTERS } from "../../resources/call-list.ts";
import { CallDetailSchema, CallSchema, TranscriptSchema } from "../../resources/calls.ts";
import { CallShareSchema } from "../../resources/shares.ts";
import { listCalls } from "../../services/calls/search.ts";
import { getCallTranscript } from "../../services/calls/records.ts";
import { getCall } from "../../services/calls/calls.ts";
import { mediaLinks } from "../../services/calls/media.ts";
import { listShares } from "../../services/support/shares.ts";
import { decodeCursor, nextCursor } from "../cursor.ts";
import { pageArgs, pageOutput } from "../pages.ts";
import { MCP_SCOPES } from "../scopes.ts";
import { defineTool, READ_ONLY } from "../tool.ts";

const filter = CallListQuery.shape;
const callId = z.uuid().describe("A call id from list_calls");

const CallFilters = z.object({
  status: filter.status,
  from: filter.from,
  to: filter.to,
  min_probability: z.number().int().min(0).max(100).optional().describe("Calls whose verdict is at least this fraud probability"),
  recommendation: filter.recommendation,
  category: filter.category,
  q: filter.q,
  origin: filter.origin,
  destination_id: filter.destination_id,
  entity: filter.entity,
  sub_customer: filter.sub_customer,
  identity_status: filter.identity_status,
  attestation: filter.attestation,
  keyword: z
    .array(z.string().trim().toLowerCase().min(1).max(100))
    .max(MAX_KEYWORD_FILTERS)
    .optional()
    .describe("Verdict keywords the call must all have"),
  sort: z.enum(CALL_SORTS).default("-started_at").describe("A leading - sorts descending"),
});

export const listCallsTool = defineTool({
  name: "list_calls",
  title: "List calls",
  description:
    "The account's calls matching every filter given, newest first unless sort says otherwise, each with its verdict " +
    "summary (analysis: probability 0-100, category, recommendation). Page on with next_cursor and the same filters.",
  scope: MCP_SCOPES.callsRead,
  hints: READ_ONLY,
  input: CallFilters.extend(pageArgs),
  aliases: { destination: "destination_id" },
  output: pageOutput(CallSchema),
  run: async ({ services, principal }, { limit, cursor, ...filters }) => {
    const offset = await decodeCursor(cursor, filters);
    const page = await listCalls(services, principal, { ...filters, limit, offset });
    return { items: page.items, total: page.total, next_cursor: await nextCursor(offset, page.items.length, page.total, filters) };
  },
  summary: (page) => `${page.items.length} of ${page.total} call(s)${page.next_cursor ? "; more with next_cursor" : ""}.`,
});

export const getCallTool = defineTool({
  name: "get_call",
  title: "Get a call",
  description:
    "One call with everything the signalling, billing and analysis know: SIP codes, timing, quality, charge, the " +
    "current verdict in full (analysis) and whether a transcript exists.",
  scope: MCP_SCOPES.callsRead,
  hints: READ_ONLY,
  input: z.object({ call_id: callId }),
  output: CallDetailSchema,
  run: ({ services, principal }, args) => getCall(services, principal, args.call_id),
  summary: (c) =>
    `Call ${c.id} ${c.status} from ${c.ani ?? "unknown"} to ${c.dialed ?? "unknown"}` +
    (c.analysis ? `: ${c.analysis.probability}% ${c.analysis.category}, ${c.analysis.recommendation}.` : "."),
});

export const getTranscriptTool = defineTool({
  name: "get_transcript",
  title: "Get a call's transcript",
  description: "The call's newest transcript: its text and the timed segments (speaker, start, end, text).",
  scope: MCP_SCOPES.callsRead,
  hints: READ_ONLY,
  input: z.object({ call_id: callId }),
  output: TranscriptSchema,
  run: ({ services, principal }, args) => getCallTranscript(services, principal, args.call_id),
  notFoundAdvice:
    "Check the call with get_call: a transcript exists once the call was recorded and transcribed (transcript_status); " +
    "an unknown call id is not found either.",
});

const ReportLinksSchema = z.object({
  call_id: z.uuid(),
  report_pdf_url: z.string().describe("The PDF report for a fraud analyst (needs the account's credential)"),
  export_url: z.string().describe("The evidence bundle: a zip of record, verdict, transcript, SIP log, recording, captures"),
  call_url: z.string().describe("The call's record in the API"),
  share_links: z
    .array(CallShareSchema)
    .describe("Password-protected public links to the call, newest first (passwords are never shown again)"),
  recording_url: z
    .string()
    .nullable()
    .describe("The recording (WAV), opening without any header until links_expire_in runs out; null: the call has none"),
  pcap_url: z
    .string()
    .nullable()
    .describe("The packet capture (pcap, or a zip of each media leg's), the same way; null: the call has none"),
  sip_ladder_url: z.string().nullable().describe("The SIP ladder as plain text, the same way; null: the call has none"),
  links_expire_in: z.number().int().describe("Seconds recording_url, pcap_url and sip_ladder_url keep working; ask again for new ones"),
});

export const reportLinksTool = defineTool({
  name: "report_links",
  title: "Report links of a call",
  description:
    "Where a person gets the call's evidence: the PDF report and the evidence-bundle URLs (opened with the account's " +
    "credential); short-lived links to the recording, the packet capture and the SIP ladder that open without any " +
    "header (null where the call has none; they expire after links_expire_in seconds); and the call's " +
    "password-protected share links with their state (active, views, expiry). New share links are made in the portal, " +
    "which shows the password once.",
  scope: MCP_SCOPES.callsRead,
  hints: READ_ONLY,
  input: z.object({ call_id: callId }),
  output: ReportLinksSchema,
  run: async ({ services, principal }, args) => {
    const [shares, media] = await Promise.all([
      listShares(services, principal, args.call_id),
      mediaLinks(services, principal, args.call_id),
    ]);
    const call = `${services.origin}/api/calls/${args.call_id}`;
    return {
      call_id: args.call_id,
      report_pdf_url: `${call}/report.pdf`,
      export_url: `${call}/export`,
      call_url: call,
      share_links: shares.items,
      recording_url: media.recording_url,
      pcap_url: media.pcap_url,
      sip_ladder_url: media.sip_ladder_url,
      links_expire_in: media.expires_in,
    };
  },
  summary: (r) => {
    const files = [r.recording_url && "recording", r.pcap_url && "packet capture", r.sip_ladder_url && "SIP ladder"].filter(Boolean);
    return (
      `${r.share_links.filter((s) => s.active).length} active share link(s); PDF report at ${r.report_pdf_url}; ` +
      (files.length ? `${files.join(", ")} linked for ${r.links_expire_in} s (no header needed).` : "no recording, capture or SIP ladder.")
    );
  },
});
