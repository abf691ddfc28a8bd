// The calls pipeline with nothing faked: sipp plays a spoken call script through the SIP node,
// the Worker transcribes the recording with the offline transcriber that `npm start` runs
// (transcriber/, PocketSphinx with the phone-call language model) and analyses it with the
// embedded analyser. The engine hears telephone-band synthetic speech with many errors
// (transcriber/README.md), yet enough of a scam's words for the analyser to flag it, and the red
// flags quote what it heard; an appointment reminder through the same path is allowed.
import { spawn, type ChildProcess } from "node:child_process";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { freeTcpPort } from "../../scripts/lib/ports.mjs";
import { pause, startStack, type Stack, type TestAccount } from "./harness.ts";
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

/** The call once the pipeline has finished with it. */
async function analysedCall(script: string): Promise<{ account: TestAccount; call: any }> {
  const { account, callId } = await scriptedCall(stack, work, script);
  let call: any;
  for (let i = 0; i < 480 && !["done", "failed"].includes(call?.analysis_status); i++) {
    await pause(250);
    call = await account.call(`/api/calls/${callId}`);
  }
  return { account, call };
}

describe("calls through the offline engines", () => {
  it("flags a spoken bank-fraud scam, its red flags quoting the stored transcript", async () => {
    const { account, call } = await analysedCall("scam-bank");
    expect(call, JSON.stringify(call)).toMatchObject({ transcript_status: "done", analysis_status: "done" });
    const transcript = await account.call(`/api/calls/${call.id}/transcript`);
    expect(transcript.segments.length).toBeGreaterThan(0);
    for (const segment of transcript.segments) {
      expect(["caller", "callee"]).toContain(segment.speaker);
      expect(segment.end).toBeGreaterThanOrEqual(segment.start);
    }
    expect(["block", "review"], `${JSON.stringify(transcript.segments)}\n${JSON.stringify(call.analysis)}`).toContain(
      call.analysis.recommendation,
    );
    const heard = transcript.segments.map((s: any) => s.text).join(" ");
    const quotes = (call.analysis.red_flags as string[]).flatMap((f) => /: "(.*)"/.exec(f)?.[1]?.split("…") ?? []).filter(Boolean);
    expect(quotes.length).toBeGreaterThan(0);
    for (const quote of quotes) expect(heard).toContain(quote.trim());
  }, 180_000);

  it("allows a spoken appointment reminder", async () => {
    const { call } = await analysedCall("benign-appointment");
    expect(call.analysis_status).toBe("done");
    expect(call.analysis.recommendation, JSON.stringify(call.analysis)).toBe("allow");
  }, 180_000);
});
