// Test calls end to end through the real stack: the Worker (wrangler dev) takes POST
// /customer/test-calls with an API key, sends `originate` to the SIP node over the NodeHub, the
// node admits the call (origin test), dials sipp behind the account's destination and plays the
// samples; the test call, its call record (origin test, a recording) and the pipeline's verdict
// are read back through the public API. The transcription service is the outside world's edge: it
// cannot hear, so it answers what the platform's side of the next call plays.
import { createServer, type Server } from "node:http";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { OriginateCommand } from "../../schema/node-api.ts";
import { parseWav } from "../../schema/wav.ts";
import { ULAW_TO_PCM } from "../../sip-node/media/g711.ts";
import { sample, SAMPLE_TEXTS } from "../../sip-node/origination/samples.ts";
import { startLocalPhone } from "../../scripts/lib/local-phone.mjs";
import { freeTcpPort } from "../../scripts/lib/ports.mjs";
import { freeUdpPort, openAccount, pause, startStack, uas, type Stack, type TestAccount } from "./harness.ts";

/** What each side of the next call says, as the transcription service will answer it. */
const heard = { caller: "", callee: "Hello? Yes, speaking." };
const transcription: Server = createServer(async (req, res) => {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  const form = await new Response(Buffer.concat(chunks), { headers: { "content-type": req.headers["content-type"]! } }).formData();
  const text = (form.get("file") as File).name.startsWith("caller") ? heard.caller : heard.callee;
  const sentences = text.split(/(?<=[.?!])\s+/).filter(Boolean);
  const segments = sentences.map((sentence, i) => ({ start: i * 3, end: i * 3 + 2.8, text: sentence }));
  res.setHeader("content-type", "application/json");
  res.end(JSON.stringify({ text, language: "en", duration: sentences.length * 3, segments }));
});

let stack: Stack;
/**
 * The platform's verification route (VERIFY_ROUTE): the local phone `npm start` runs, which hears
 * the code in the RTP as the number's holder would. Never an account's destination.
 */
let phone: Awaited<ReturnType<typeof startLocalPhone>>;
const phoneHeard: string[] = [];
/** The originate commands the node received (a person would hear a verification code; the test reads it here). */
const commands: OriginateCommand[] = [];

beforeAll(async () => {
  const port = await freeTcpPort();
  await new Promise<void>((resolve) => transcription.listen(port, "127.0.0.1", resolve));
  phone = await startLocalPhone({ log: (line) => phoneHeard.push(line) });
  stack = await startStack(
    {},
    {
      TRANSCRIPTION_PROVIDER: "openai-compatible",
      TRANSCRIPTION_URL: `http://127.0.0.1:${port}/v1`,
      VERIFY_ROUTE: `sip:127.0.0.1:${phone.port}`,
    },
  );
  await stack.node.hub.connected;
  const originator = stack.node.originator;
  const originate = originator.originate.bind(originator);
  originator.originate = (command) => {
    commands.push(command);
    return originate(command);
  };
}, 120_000);

afterAll(async () => {
  await stack?.stop();
  await phone?.stop();
  await new Promise((resolve) => transcription.close(resolve));
});

/** An account with a destination at sipp's port and an API key; `api` calls the API with the key. */
async function accountWithKey(
  port: number,
): Promise<TestAccount & { api(path: string, body?: unknown): Promise<{ status: number; body: any }> }> {
  const account = await openAccount(stack, port);
  const key = await account.call("/api/auth/api-keys", { body: { name: "test calls" } });
  if (!key?.key) throw new Error(`api key: ${JSON.stringify(key)}`);
  const api = async (path: string, body?: unknown) => {
    const res = await fetch(`${stack.api}${path}`, {
      method: body === undefined ? "GET" : "POST",
      headers: { "x-api-key": key.key, "content-type": "application/json" },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await res.text();
    return { status: res.status, body: text ? JSON.parse(text) : null };
  };
  return { ...account, api };
}

async function until<T>(what: string | (() => string), check: () => Promise<T | null | undefined | false>, seconds = 60): Promise<T> {
  for (let i = 0; i < seconds * 4; i++) {
    const value = await check();
    if (value) return value;
    await pause(250);
  }
  throw new Error(`timed out waiting for ${typeof what === "string" ? what : what()}`);
}

const FINAL = ["done", "failed", "cancelled", "expired"];

/** The test call once over. */
async function testCallEnd(account: Awaited<ReturnType<typeof accountWithKey>>, id: string) {
  return until("the test call's end", async () => {
    const { body } = await account.api(`/api/customer/test-calls/${id}`);
    return FINAL.includes(body.status) && body;
  });
}

/** The test call once over, and its call record once its recording is in (and, with `analysed`, once analysed). */
async function finished(account: Awaited<ReturnType<typeof accountWithKey>>, id: string, analysed = false) {
  const testCall = await testCallEnd(account, id);
  let last: unknown = null;
  const call = await until(
    () => `the call record (last seen: ${JSON.stringify(last)})`,
    async () => {
      const { body } = await account.api(`/api/calls/${testCall.call_id}`);
      last = body;
      if (!body?.ended_at || !body.recording_available) return null;
      return (!analysed || ["done", "failed"].includes(body.analysis_status)) && body;
    },
  );
  return { testCall, call };
}

/**
 * Verifies `number` as a person would: the platform calls it on its own route, where the local
 * phone hears the six-digit code in the RTP, and the owner enters what it heard.
 */
async function verify(account: Awaited<ReturnType<typeof accountWithKey>>, number: string): Promise<void> {
  const added = await account.api("/api/customer/verified-numbers", { number });
  expect(added.status, JSON.stringify(added.body)).toBe(201);
  const line = await until(`the local phone hearing the code spoken to ${number}`, async () =>
    phoneHeard.find((l) => l.includes(number.slice(1))),
  );
  const code = /heard the code ([0-9]{6})/.exec(line)![1]!;
  expect(code).toBe(commands.find((c) => c.number === number && c.speech === "verification_code")?.code);
  const verified = await account.api(`/api/customer/verified-numbers/${added.body.id}/verify`, { code });
  expect(verified.body).toMatchObject({ verified: true });
  // The verification call left the account nothing to read: no call record.
  expect((await account.api("/api/calls")).body.items.filter((c: { dialed: string }) => c.dialed.endsWith(number.slice(2)))).toEqual([]);
}

describe("a test call through the stack", () => {
  it("rings the number through the account's destination, plays the samples and reads done, with a recorded call of origin test", async () => {
    const port = await freeUdpPort();
    const account = await accountWithKey(port);
    // sipp echoes the RTP it receives: the recording's callee side is what reached it.
    const far = uas("uas.xml", port, false, {}, 1, ["-rtp_echo"]);
    await far.listening;
    heard.caller = `${SAMPLE_TEXTS.announcement} ${SAMPLE_TEXTS.route_test}`;
    const placed = await account.api("/api/customer/test-calls", { number: "+14155550123", seconds: 5 });
    expect(placed.status, JSON.stringify(placed.body)).toBe(202);
    expect(placed.body).toMatchObject({ number: "+14155550123", seconds: 5, speech: "route_test", purpose: "test" });

    const { testCall, call } = await finished(account, placed.body.id);
    expect((await far).code).toBe(0);
    expect(testCall).toMatchObject({ status: "done", answered: true, sip_code: 200, ended_by: "platform", error: null });
    const talk = sample("announcement").length / 8000 + 5;
    expect(testCall.talk_seconds).toBeGreaterThanOrEqual(talk - 0.2);
    expect(testCall.talk_seconds).toBeLessThan(talk + 1.5);
    expect(call).toMatchObject({
      id: testCall.call_id,
      origin: "test",
      status: "completed",
      dialed: "+14155550123",
      recording_available: true,
    });
    expect(call.billsec).toBeGreaterThanOrEqual(Math.floor(talk));

    const res = await fetch(`${stack.api}/api/calls/${call.id}/recording`, { headers: { authorization: `Bearer ${account.token}` } });
    expect(res.status).toBe(200);
    const audio = parseWav(new Uint8Array(await res.arrayBuffer()));
    const right = audio.samples.filter((_, i) => i % 2 === 1);
    const announced = Int16Array.from(sample("announcement").subarray(8_000, 9_000), (code) => ULAW_TO_PCM[code]!);
    // The announcement as the far end received it, sample for sample.
    const at = right.findIndex((_, i) => announced.every((s, j) => right[i + j] === s));
    expect(at).toBeGreaterThanOrEqual(0);
  }, 120_000);

  it("fails with the far end's busy (486) and its reason", async () => {
    const port = await freeUdpPort();
    const account = await accountWithKey(port);
    const far = uas("uas-busy.xml", port);
    await far.listening;
    const placed = await account.api("/api/customer/test-calls", { number: "+14155550123", seconds: 5 });
    const testCall = await testCallEnd(account, placed.body.id);
    expect((await far).code).toBe(0);
    expect(testCall).toMatchObject({ status: "failed", answered: false, sip_code: 486, sip_reason: "Busy Here", ended_by: "callee" });
  }, 60_000);

  it("is cancelled while it rings: the far end gets CANCEL through the NodeHub, the test call reads cancelled", async () => {
    const port = await freeUdpPort();
    const account = await accountWithKey(port);
    const far = uas("uas-ring.xml", port);
    await far.listening;
    const placed = await account.api("/api/customer/test-calls", { number: "+14155550123", seconds: 5 });
    const ringing = await until("ringing", async () => {
      const { body } = await account.api(`/api/customer/test-calls/${placed.body.id}`);
      return body.status === "ringing" && body;
    });
    // While it rings the inspector has the node's ladder so far (its answer to `stats`): our INVITE and the 180.
    const inspected = await until(
      "the ringing call's ladder in the inspector",
      async () => {
        const { body } = await account.api(`/api/calls/${ringing.call_id}/inspect`);
        return body?.live && body.ladder?.some((m: { status: string | null }) => m.status === "180 Ringing") && body;
      },
      10,
    );
    expect(
      inspected.ladder.map((m: { direction: string; status: string | null; method: string }) => `${m.direction} ${m.status ?? m.method}`),
    ).toEqual(["out INVITE", "in 180 Ringing"]);
    expect(inspected.ladder[0]).toMatchObject({
      toip: `127.0.0.1:${port}`,
      first_line: expect.stringMatching(/^INVITE sip:/),
      headers: null,
    });
    const cancelled = await account.api(`/api/customer/test-calls/${placed.body.id}/cancel`, {});
    expect(cancelled.status).toBe(200);
    expect(cancelled.body.status).toBe("cancelled");
    // The scenario passes only once it has received the CANCEL.
    expect((await far).code).toBe(0);
    // Cancelled at once by the API; what the call did comes with the node's end report, a moment later.
    const ended = await until("the node's end report of the cancelled call", async () => {
      const { body } = await account.api(`/api/customer/test-calls/${placed.body.id}`);
      return body.answered !== null && body;
    });
    expect(ended).toMatchObject({ status: "cancelled", answered: false });
  }, 60_000);

  it("plays the scam sample to a verified number (verified by a call that speaks the code), and the screening flags it", async () => {
    const port = await freeUdpPort();
    const account = await accountWithKey(port);

    await verify(account, "+14155550177");

    const far = uas("uas.xml", port);
    await far.listening;
    heard.caller = `${SAMPLE_TEXTS.announcement} ${SAMPLE_TEXTS.scam_sample}`;
    const placed = await account.api("/api/customer/test-calls", { number: "+14155550177", seconds: 5, speech: "scam_sample" });
    expect(placed.status, JSON.stringify(placed.body)).toBe(202);
    const { testCall, call } = await finished(account, placed.body.id, true);
    expect((await far).code).toBe(0);
    expect(testCall).toMatchObject({ status: "done", answered: true });
    expect(call).toMatchObject({ origin: "test", analysis_status: "done" });
    expect(["block", "review"]).toContain(call.analysis.recommendation);
  }, 120_000);
  it("voice-agent mode: bridges a verified number to the account's voice-AI destination", async () => {
    const port = await freeUdpPort();
    const agentPort = await freeUdpPort();
    const account = await accountWithKey(port);
    await verify(account, "+14155550188");
    const agent = await account.call("/api/customer/destinations", {
      body: { kind: "voice_ai", provider: "vapi", host: "127.0.0.1", port: agentPort, agent_id: "agent-7", label: "agent" },
    });
    expect(agent.kind, JSON.stringify(agent)).toBe("voice_ai");

    // The agent speaks (sipp's A-law speech); the number echoes what reaches it.
    const speech = "/usr/share/sip-tester/g711a.pcap";
    const talking = uas("uas-media.xml", agentPort, false, { AUDIO: speech });
    const number = uas("uas-hungup-pcma.xml", port, false, {}, 1, ["-rtp_echo"]);
    await Promise.all([talking.listening, number.listening]);
    const placed = await account.api("/api/customer/test-calls", {
      number: "+14155550188",
      seconds: 5,
      agent_destination_id: agent.id,
      instruction: "Ask whether the route sounds clear.",
    });
    expect(placed.status, JSON.stringify(placed.body)).toBe(202);
    const { testCall, call } = await finished(account, placed.body.id);
    expect((await number).code).toBe(0);
    expect((await talking).code).toBe(0);
    expect(testCall).toMatchObject({ status: "done", answered: true, ended_by: "platform" });
    expect(testCall.talk_seconds).toBeGreaterThanOrEqual(4.8);
    expect(call).toMatchObject({ origin: "test", recording_available: true });
    // Both ways: the agent's packets reached the number (and came back echoed).
    expect(call.qos.caller.packets).toBeGreaterThan(100);
    expect(call.qos.callee.packets).toBeGreaterThan(100);
  }, 120_000);
});
