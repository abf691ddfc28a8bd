// The calls pipeline with nothing faked: sipp plays a spoken scam script through the SIP node,
// the Worker transcribes the recording with the offline transcriber that `npm start` runs
// (transcriber/, PocketSphinx) and analyses it with the embedded analyser. The engine hears
// telephone-band synthetic speech poorly (transcriber/README.md), so the test asks for a stored
// transcript with timed segments and a verdict, not for particular words.
import { spawn, type ChildProcess } from "node:child_process";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { freeTcpPort } from "../../scripts/lib/ports.mjs";
import { pause, startStack, type Stack } from "./harness.ts";
import { scriptedCall } from "./speech-pcap.ts";

const root = new URL("../..", import.meta.url).pathname;
const work = mkdtempSync(join(tmpdir(), "pipeline-offline-"));

let stack: Stack;
let transcriber: ChildProcess;

beforeAll(async () => {
  const port = await freeTcpPort();
  transcriber = spawn(process.execPath, [`${root}transcriber/server.ts`], {
    env: { ...process.env, TRANSCRIBER_HOST: "127.0.0.1", TRANSCRIBER_PORT: String(port) },
    stdio: "ignore",
  });
  for (
    let i = 0;
    i < 60 &&
    !(await fetch(`http://127.0.0.1:${port}/health`).then(
      (r) => r.ok,
      () => false,
    ));
    i++
  )
    await pause(250);
  stack = await startStack({}, { TRANSCRIPTION_PROVIDER: "openai-compatible", TRANSCRIPTION_URL: `http://127.0.0.1:${port}/v1` });
}, 120_000);

afterAll(async () => {
  await stack?.stop();
  transcriber?.kill("SIGTERM");
});

describe("a scam script through the offline engines", () => {
  it("ends with a stored transcript of timed segments and a verdict", async () => {
    const { account, callId } = await scriptedCall(stack, work, "scam-bank");

    let call: any;
    for (let i = 0; i < 480 && !["done", "failed"].includes(call?.analysis_status); i++) {
      await pause(250);
      call = await account.call(`/api/calls/${callId}`);
    }
    expect(call, JSON.stringify(call)).toMatchObject({ transcript_status: "done", analysis_status: "done" });
    expect(["block", "review", "allow"]).toContain(call.analysis.recommendation);
    const transcript = await account.call(`/api/calls/${callId}/transcript`);
    expect(transcript.segments.length).toBeGreaterThan(0);
    for (const segment of transcript.segments) {
      expect(["caller", "callee"]).toContain(segment.speaker);
      expect(segment.end).toBeGreaterThanOrEqual(segment.start);
    }
    expect(transcript.text.length).toBeGreaterThan(0);
  }, 180_000);
});
