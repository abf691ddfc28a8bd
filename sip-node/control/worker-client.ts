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
  CallEventResponse,
  MonitorTargets,
  WhitelistSnapshot,
  type AdmitRequest,
  type CallEvent,
  type MonitorResult,
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

export function workerClient(config: SipNodeConfig["worker"]) {
  const call = async (method: string, path: string, body?: unknown): Promise<unknown> => {
    const res = await fetch(`${config.url}/internal${path}`, {
      method,
      headers: { authorization: `Bearer ${config.nodeToken}`, ...(body === undefined ? {} : { "content-type": "application/json" }) },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    if (res.status === 204) return null;
    const text = await res.text();
    if (!res.ok) throw new WorkerApiError(`${method} ${path}: ${res.status} ${text.slice(0, 200)}`, res.status);
    return JSON.parse(text);
  };
  /** Streams a spooled file to the Worker, which stores it in R2 under the call. */
  const uploadMedia = async (callId: string, name: MediaName, path: string): Promise<void> => {
    const { size } = await stat(path);
    const res = await fetch(`${config.url}/internal/calls/${callId}/media/${name}`, {
      method: "PUT",
      headers: { authorization: `Bearer ${config.nodeToken}`, "content-type": MEDIA_CONTENT_TYPES[name], "content-length": String(size) },
      body: Readable.toWeb(createReadStream(path)) as ReadableStream,
      duplex: "half",
    } as RequestInit);
    if (!res.ok) throw new WorkerApiError(`upload ${name}: ${res.status} ${(await res.text()).slice(0, 200)}`, res.status);
    MediaUploadResponse.parse(await res.json());
  };
  return {
    uploadMedia,
    admit: async (request: AdmitRequest) => AdmitResponse.parse(await call("POST", "/calls/admit", request)),
    event: async (callId: string, event: CallEvent) => CallEventResponse.parse(await call("POST", `/calls/${callId}/events`, event)),
    whitelist: async (since: number) => WhitelistSnapshot.parse(await call("GET", `/whitelist?since=${since}`)),
    monitorTargets: async () => MonitorTargets.parse(await call("GET", "/monitor/destinations")),
    monitorResults: async (results: MonitorResult[]) => void (await call("POST", "/monitor/results", { results })),
  };
}
