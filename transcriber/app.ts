// The HTTP face of the transcriber: the part of OpenAI's audio API the Worker uses.
//   GET  /health                    200 with the engine's name once it is ready
//   GET  /v1/models                 the one model
//   POST /v1/audio/transcriptions   multipart form: file (WAV), model, response_format
//                                   (json | verbose_json | text), language (en), others ignored
// Errors answer {error: {message, type, param, code}} as OpenAI does: 400 for a bad request or an
// unreadable file, 413 for a file over the limit, 503 when the queue is full, 500 when the engine fails.
import type { IncomingMessage, Server, ServerResponse } from "node:http";
import { createServer } from "node:http";
import type { SpeechEngine } from "./engine.ts";
import { EngineUnavailable } from "./engine.ts";
import { transcribeWav } from "./transcribe.ts";
import { WavError } from "./wav.ts";

export type AppOptions = { concurrency: number; maxQueue: number; maxBytes: number };

class HttpError extends Error {
  readonly status: number;
  readonly type: string;
  readonly param: string | null;

  constructor(status: number, message: string, param: string | null = null, type = "invalid_request_error") {
    super(message);
    this.status = status;
    this.param = param;
    this.type = type;
  }
}

const FORMATS = new Set(["json", "verbose_json", "text"]);
const ENGLISH = /^(en(-[a-z]{2})?|english)$/i;

/** An HTTP server (not yet listening) that transcribes with the engine. */
export function createTranscriberServer(engine: SpeechEngine, options: AppOptions): Server {
  const gate = new Gate(options.concurrency, options.maxQueue);

  const transcriptions = async (req: IncomingMessage, res: ServerResponse, signal: AbortSignal) => {
    const form = await readForm(req, options.maxBytes);
    const file = form.get("file");
    if (!(file instanceof Blob)) throw new HttpError(400, "file is required: a WAV file in the form field 'file'", "file");
    const model = form.get("model");
    if (typeof model !== "string" || !model.trim()) throw new HttpError(400, "you must provide a model parameter", "model");
    const format = String(form.get("response_format") ?? "json");
    if (!FORMATS.has(format))
      throw new HttpError(400, `response_format '${format}' is not supported: use json, verbose_json or text`, "response_format");
    const language = form.get("language");
    if (typeof language === "string" && language && !ENGLISH.test(language)) {
      throw new HttpError(400, `language '${language}' is not available: this engine's model is English (en) only`, "language");
    }
    const wav = new Uint8Array(await file.arrayBuffer());
    const transcript = await gate.run(async () => {
      if (signal.aborted) throw new HttpError(499, "the client went away");
      try {
        return await transcribeWav(engine, wav, { signal });
      } catch (err) {
        if (err instanceof WavError) throw new HttpError(400, `could not read the audio file: ${err.message}`, "file");
        throw err;
      }
    });
    if (format === "text") return send(res, 200, `${transcript.text}\n`, "text/plain; charset=utf-8");
    if (format === "json") return sendJson(res, 200, { text: transcript.text });
    sendJson(res, 200, transcript);
  };

  return createServer((req, res) => {
    const aborter = new AbortController();
    res.on("close", () => {
      if (!res.writableFinished) aborter.abort();
    });
    const path = (req.url ?? "/").split("?")[0];
    const handle = async () => {
      if (path === "/health" || path === "/v1/models") {
        if (req.method !== "GET" && req.method !== "HEAD") throw new HttpError(405, `${req.method} is not allowed here`);
        if (path === "/health") return sendJson(res, 200, { status: "ok", ...engine.info, running: gate.running, queued: gate.queued });
        return sendJson(res, 200, { object: "list", data: [{ id: engine.info.model, object: "model", owned_by: "local" }] });
      }
      if (path === "/v1/audio/transcriptions") {
        if (req.method !== "POST") throw new HttpError(405, `${req.method} is not allowed here: POST a multipart form`);
        return transcriptions(req, res, aborter.signal);
      }
      throw new HttpError(404, `no route ${req.method} ${path}`);
    };
    handle().catch((err: unknown) => {
      if (res.headersSent || aborter.signal.aborted) return void res.destroy();
      if (err instanceof HttpError) return sendError(res, err);
      if (err instanceof EngineUnavailable) return sendError(res, new HttpError(503, err.message, null, "server_error"));
      console.error(`transcription failed: ${(err as Error).message}`);
      sendError(res, new HttpError(500, `transcription failed: ${(err as Error).message}`, null, "server_error"));
    });
  });
}

/** The multipart body as form data, refused past maxBytes. */
async function readForm(req: IncomingMessage, maxBytes: number): Promise<FormData> {
  const type = req.headers["content-type"] ?? "";
  if (!/^multipart\/form-data\s*;/i.test(type)) throw new HttpError(400, "the body must be multipart/form-data");
  const declared = Number(req.headers["content-length"] ?? 0);
  if (declared > maxBytes) throw tooLarge(maxBytes);
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > maxBytes) throw tooLarge(maxBytes);
    chunks.push(chunk);
  }
  try {
    return await new Request("http://transcriber/", {
      method: "POST",
      headers: { "content-type": type },
      body: Buffer.concat(chunks),
    }).formData();
  } catch {
    throw new HttpError(400, "the multipart form could not be parsed");
  }
}

function tooLarge(maxBytes: number): HttpError {
  return new HttpError(413, `the upload is over the ${Math.round(maxBytes / 1024 / 1024)} MB limit`, "file");
}

function sendError(res: ServerResponse, err: HttpError): void {
  if (err.status === 503) res.setHeader("retry-after", "5");
  sendJson(res, err.status, { error: { message: err.message, type: err.type, param: err.param, code: null } });
}

function sendJson(res: ServerResponse, status: number, body: unknown): void {
  send(res, status, JSON.stringify(body), "application/json");
}

function send(res: ServerResponse, status: number, body: string, type: string): void {
  res.writeHead(status, { "content-type": type, "content-length": Buffer.byteLength(body) });
  res.end(body);
}

/** Runs at most `limit` tasks at once, with at most `maxQueue` waiting. */
class Gate {
  running = 0;
  private readonly waiting: (() => void)[] = [];
  private readonly limit: number;
  private readonly maxQueue: number;

  constructor(limit: number, maxQueue: number) {
    this.limit = limit;
    this.maxQueue = maxQueue;
  }

  get queued(): number {
    return this.waiting.length;
  }

  async run<T>(task: () => Promise<T>): Promise<T> {
    if (this.running >= this.limit) {
      if (this.waiting.length >= this.maxQueue)
        throw new HttpError(503, "the transcriber is busy: try again shortly", null, "server_error");
      await new Promise<void>((resolve) => this.waiting.push(resolve));
    } else {
      this.running++;
    }
    try {
      return await task();
    } finally {
      const next = this.waiting.shift();
      if (next) next();
      else this.running--;
    }
  }
}
