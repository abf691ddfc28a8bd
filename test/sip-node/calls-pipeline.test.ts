// The calls pipeline end to end: sipp plays a spoken call script through the SIP node, the Worker
// (wrangler dev, its real queue) transcribes the recording through its OpenAI-compatible adapter
// and analyses it with the embedded analyser; the verdict, the ledger, the PDF report and the
// evidence bundle are read back through the public API as a customer would.
import { createServer, type Server } from "node:http";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createHash } from "node:crypto";
import { unzipSync } from "fflate";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { freeTcpPort } from "../../scripts/lib/ports.mjs";
import { pdfText } from "../shared/pdf-text.ts";
import { pause, startStack, type Stack, type TestAccount } from "./harness.ts";
import { callScript, scriptedCall } from "./speech-pcap.ts";

const work = mkdtempSync(join(tmpdir(), "pipeline-test-"));

/**
 * The edge of the outside world: an OpenAI-compatible transcription server. It cannot hear, so it
 * answers what the test says each side of the next call speaks, split into timed sentences.
 */
function fakeTranscriptionServer() {
  const next = { caller: "", callee: "" };
  const heard: string[] = [];
  const server = createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const form = await new Response(Buffer.concat(chunks), { headers: { "content-type": req.headers["content-type"]! } }).formData();
    const file = form.get("file") as File;
    heard.push(`${form.get("response_format")}:${file.name}:${file.size}`);
    const text = file.name.startsWith("caller") ? next.caller : next.callee;
    const sentences = text.split(/(?<=[.?!])\s+/).filter(Boolean);
    const segments = sentences.map((sentence, i) => ({ start: i * 3, end: i * 3 + 2.8, text: sentence }));
    res.setHeader("content-type", "application/json");
    res.end(JSON.stringify({ text, language: "en", duration: sentences.length * 3, segments }));
  });
  return { server, next, heard };
}

let stack: Stack;
let transcription: ReturnType<typeof fakeTranscriptionServer>;

beforeAll(async () => {
  transcription = fakeTranscriptionServer();
  const port = await freeTcpPort();
  await new Promise<void>((resolve) => transcription.server.listen(port, "127.0.0.1", resolve));
  stack = await startStack({}, { TRANSCRIPTION_PROVIDER: "openai-compatible", TRANSCRIPTION_URL: `http://127.0.0.1:${port}/v1` });
}, 120_000);

afterAll(async () => {
  await stack?.stop();
  await new Promise((resolve) => (transcription?.server as Server | undefined)?.close(resolve) ?? resolve(null));
});

/** A new account's call speaking `script`; the fake server will answer that script's words. */
async function scriptedCallHeard(script: string): Promise<{ account: TestAccount; callId: string }> {
  transcription.next.caller = callScript(script);
  transcription.next.callee = callScript("callee-hello");
  return scriptedCall(stack, work, script);
}

/** The call once the pipeline has finished with it. */
async function analysedCall(account: TestAccount, callId: string): Promise<any> {
  for (let i = 0; i < 240; i++) {
    const call = await account.call(`/api/calls/${callId}`);
    if (call.analysis_status === "done" || call.analysis_status === "failed") return call;
    await pause(250);
  }
  throw new Error("the pipeline did not finish the call within 60 s");
}

async function download(account: TestAccount, path: string): Promise<{ status: number; type: string; bytes: Uint8Array }> {
  const res = await fetch(`${stack.api}${path}`, { headers: { authorization: `Bearer ${account.token}` } });
  return { status: res.status, type: res.headers.get("content-type") ?? "", bytes: new Uint8Array(await res.arrayBuffer()) };
}

describe("a scam script played through the SIP node", () => {
  let account: TestAccount;
  let call: any;

  beforeAll(async () => {
    const placed = await scriptedCallHeard("scam-bank");
    account = placed.account;
    call = await analysedCall(account, placed.callId);
  }, 120_000);

  it("ends in a block or review verdict whose red flags quote the script", () => {
    expect(call).toMatchObject({ status: "completed", recording_available: true, transcript_status: "done", analysis_status: "done" });
    expect(["block", "review"]).toContain(call.analysis.recommendation);
    expect(call.analysis.probability).toBeGreaterThanOrEqual(30);
    const flags = (call.analysis.red_flags as string[]).join(" ").toLowerCase();
    expect(flags).toMatch(/one time code|fraud department|do not tell anyone|urgent/);
    // Each side was sent apart, as a mono WAV of the call's length.
    expect(transcription.heard.filter((h) => h.startsWith("verbose_json:caller.wav")).length).toBeGreaterThanOrEqual(1);
    expect(transcription.heard.filter((h) => h.startsWith("verbose_json:callee.wav")).length).toBeGreaterThanOrEqual(1);
  });

  it("keeps a transcript with speaker-timed segments", async () => {
    const transcript = await account.call(`/api/calls/${call.id}/transcript`);
    expect(transcript.text).toContain("fraud department of your bank");
    expect(new Set(transcript.segments.map((s: any) => s.speaker))).toEqual(new Set(["caller", "callee"]));
  });

  it("charges the call and the analysis, each against the call", async () => {
    const ledger = await account.call("/api/customer/ledger");
    const types = ledger.items.filter((e: any) => e.call_id === call.id).map((e: any) => e.type);
    expect(types.sort()).toEqual(["analysis", "call"]);
  });

  it("reports as a PDF whose text holds the verdict", async () => {
    const report = await download(account, `/api/calls/${call.id}/report.pdf`);
    expect(report).toMatchObject({ status: 200, type: "application/pdf" });
    const text = (await pdfText(report.bytes)).lines.join("\n").toLowerCase();
    expect(text).toContain(call.analysis.recommendation);
    expect(text).toContain(String(call.analysis.probability));
  });

  it("exports a bundle whose manifest hashes match its files", async () => {
    const bundle = await download(account, `/api/calls/${call.id}/export`);
    expect(bundle.status).toBe(200);
    const files = unzipSync(bundle.bytes);
    expect(Object.keys(files)).toEqual(
      expect.arrayContaining(["call.json", "analysis.json", "transcript.json", "recording.wav", "manifest.json"]),
    );
    const manifest = JSON.parse(new TextDecoder().decode(files["manifest.json"]));
    const listed = manifest.files;
    expect(listed.length).toBeGreaterThanOrEqual(5);
    for (const entry of listed) {
      expect(createHash("sha256").update(files[entry.name]!).digest("hex"), entry.name).toBe(entry.sha256);
    }
  });
});

describe("an ordinary call played through the same path", () => {
  it("ends in allow", async () => {
    const { account, callId } = await scriptedCallHeard("benign-appointment");
    const call = await analysedCall(account, callId);
    expect(call.analysis_status).toBe("done");
    expect(call.analysis.recommendation).toBe("allow");
  }, 120_000);
});
