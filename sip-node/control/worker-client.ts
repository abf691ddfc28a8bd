// The node's calls to the Worker's internal node API. Answers are validated against the same
// zod schemas the Worker answers with (schema/node-api.ts).
import { createReadStream } from "node:fs";
import { stat } from "node:fs/promises";
import { Readable } from "node:stream";
import {
  AdmitResponse,
  MEDIA_CONTENT_TYPES,
  MediaUploadResponse,
  type MediaName,
  CallReportAnswer,
  CliArrivalAnswer,
  MonitorTargets,
  WhitelistSnapshot,
  type AdmitRequest,
  type CallReport,
  type CliArrival,
  type CliArrivalEnd,
  type MonitorResult,
  type TestCallProgress,
} from "../../schema/node-api.ts";
import type { SipNodeConfig } from "../config.ts";

export type WorkerClient = ReturnType<typeof workerClient>;

/** The Worker answered with an error status. */
export class WorkerApiError extends Error {
  readonly status: number;
  constructor(message: string, status: number) {
    super(message);
    this.status = status;
  }
}

/** A call report the Worker has not answered in this long is sent again (same batch). */
const REPORT_TIMEOUT_MS = 5_000;
/** The hosted-number listener waits this long for the Worker's word on an arrival, then answers 503. */
const CLI_ARRIVAL_TIMEOUT_MS = 5_000;

export function workerClient(config: Omit<SipNodeConfig["worker"], "nodeId"> & { nodeId?: string }) {
  // The node's token and, when it has one, its name: the Worker keeps a token per node.
  const credentials = { authorization: `Bearer ${config.nodeToken}`, ...(config.nodeId ? { "x-node-id": config.nodeId } : {}) };
  const call = async (method: string, path: string, body?: unknown, timeoutMs?: number): Promise<unknown> => {
    const res = await fetch(`${config.url}/internal${path}`, {
      method,
      headers: { ...credentials, ...(body === undefined ? {} : { "content-type": "application/json" }) },
      body: body === undefined ? undefined : JSON.stringify(body),
      ...(timeoutMs ? { signal: AbortSignal.timeout(timeoutMs) } : {}),
    });
    if (res.status === 204) return null;
    const text = await res.text();
    if (!res.ok) throw new WorkerApiError(`${method} ${path}: ${res.status} ${text.slice(0, 200)}`, res.status);
    return JSON.parse(text);
  };
  /** Streams a spooled file to the Worker, which stores it in R2 under the call (of `customerId`'s ledger when known). */
  const uploadMedia = async (callId: string, name: MediaName, path: string, customerId?: string): Promise<void> => {
    const { size } = await stat(path);
    const query = customerId ? `?customer_id=${encodeURIComponent(customerId)}` : "";
    const res = await fetch(`${config.url}/internal/calls/${callId}/media/${name}${query}`, {
      method: "PUT",
      headers: { ...credentials, "content-type": MEDIA_CONTENT_TYPES[name], "content-length": String(size) },
      body: Readable.toWeb(createReadStream(path)) as ReadableStream,
      duplex: "half",
    } as RequestInit);
    if (!res.ok) throw new WorkerApiError(`upload ${name}: ${res.status} ${(await res.text()).slice(0, 200)}`, res.status);
    MediaUploadResponse.parse(await res.json());
  };
  return {
    uploadMedia,
    admit: async (request: AdmitRequest) => AdmitResponse.parse(await call("POST", "/calls/admit", request)),
    /** One batch of call events and/or the node's heartbeat; the answer carries grants and calls to end. */
    report: async (report: CallReport) => CallReportAnswer.parse(await call("POST", "/calls/report", report, REPORT_TIMEOUT_MS)),
    whitelist: async (since: number) => WhitelistSnapshot.parse(await call("GET", `/whitelist?since=${since}`)),
    monitorTargets: async () => MonitorTargets.parse(await call("GET", "/monitor/destinations")),
    monitorResults: async (results: MonitorResult[]) => void (await call("POST", "/monitor/results", { results })),
    /** A test call the node places moved on (POST /internal/test-calls/{id}/progress). */
    testCallProgress: async (testCallId: string, progress: TestCallProgress) =>
      void (await call("POST", `/test-calls/${encodeURIComponent(testCallId)}/progress`, progress, REPORT_TIMEOUT_MS)),
    /** An INVITE reached the hosted-number listener (POST /internal/cli/arrivals): answer it or refuse it. */
    cliArrival: async (arrival: CliArrival) => CliArrivalAnswer.parse(await call("POST", "/cli/arrivals", arrival, CLI_ARRIVAL_TIMEOUT_MS)),
    /** How an answered arrival went (POST /internal/cli/arrivals/{id}/end). */
    cliArrivalEnd: async (arrivalId: string, end: CliArrivalEnd) =>
      void (await call("POST", `/cli/arrivals/${encodeURIComponent(arrivalId)}/end`, end, REPORT_TIMEOUT_MS)),
  };
}
