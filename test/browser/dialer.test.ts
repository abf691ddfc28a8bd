// The web dialer end to end in a real browser: Debian's chromium (driven by playwright-core) with
// a fake microphone playing a known WAV opens /dialer with the portal's token, places a call
// through the SIP node's WebSocket listener (JsSIP, WebRTC bridged by werift) to a sipp UAS that
// answers, sends a DTMF digit and hangs up from the page. The UAS's media socket captures what
// reached it (saved as test-results/dialer-uas.pcap): RTP whose decoded audio correlates with the
// WAV, and the digit as an RFC 4733 event. The call's recording holds the browser's audio on the
// caller channel, its record says origin dialer and shows the charge and the digit. Signing in
// with e-mail and password works too, and an account whose dialer is off is told so.
import { createSocket, type Socket } from "node:dgram";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { chromium, type Browser } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { freeTcpPort } from "../../scripts/lib/ports.mjs";
import { ULAW_TO_PCM } from "../../sip-node/media/g711.ts";
import { writePcapFile, type PcapRecord } from "../../sip-node/media/pcap.ts";
import { freeUdpPort, openAccount, pause, startStack, syncLedger, uas, type Stack, type TestAccount } from "../sip-node/harness.ts";

const CHROMIUM = process.env.CHROMIUM_PATH ?? "/usr/bin/chromium";
const RESULTS = new URL("../../test-results/", import.meta.url).pathname;

/** Ten 200 ms steps (150 ms of a tone, 50 ms of silence), each its own pitch: two seconds that loop. */
const STEPS = [500, 700, 900, 1100, 1300, 800, 600, 1000, 1200, 400];
const LOOP_SECONDS = 2;

function signal(rate: number): Int16Array {
  const samples = new Int16Array(rate * LOOP_SECONDS);
  const step = rate / 5;
  for (let i = 0; i < samples.length; i++) {
    const within = i % step;
    if (within >= step * 0.75) continue;
    const frequency = STEPS[Math.floor(i / step)]!;
    samples[i] = Math.round(9000 * Math.sin((2 * Math.PI * frequency * i) / rate));
  }
  return samples;
}

/** The fake microphone's file: the signal at 48 kHz, mono 16-bit PCM. */
function wavOf(samples: Int16Array, rate: number): Buffer {
  const wav = Buffer.alloc(44 + samples.length * 2);
  wav.write("RIFF", 0);
  wav.writeUInt32LE(36 + samples.length * 2, 4);
  wav.write("WAVEfmt ", 8);
  wav.writeUInt32LE(16, 16);
  wav.writeUInt16LE(1, 20);
  wav.writeUInt16LE(1, 22);
  wav.writeUInt32LE(rate, 24);
  wav.writeUInt32LE(rate * 2, 28);
  wav.writeUInt16LE(2, 32);
  wav.writeUInt16LE(16, 34);
  wav.write("data", 36);
  wav.writeUInt32LE(samples.length * 2, 40);
  Buffer.from(samples.buffer).copy(wav, 44);
  return wav;
}

/**
 * The best normalised cross-correlation of a one-second stretch of `heard` (8 kHz) with the
 * looping 8 kHz reference, over every lag within one loop.
 */
function correlation(heard: Int16Array, reference: Int16Array, from: number): number {
  const n = 8000;
  const window = heard.subarray(from, from + n);
  if (window.length < n) return 0;
  let energy = 0;
  for (const x of window) energy += x * x;
  let best = 0;
  for (let lag = 0; lag < reference.length; lag += 1) {
    let dot = 0;
    let refEnergy = 0;
    for (let i = 0; i < n; i++) {
      const y = reference[(lag + i) % reference.length]!;
      dot += window[i]! * y;
      refEnergy += y * y;
    }
    const score = dot / Math.sqrt(energy * refEnergy || 1);
    if (score > best) best = score;
  }
  return best;
}

let stack: Stack;
let browser: Browser;
let account: TestAccount;
let work: string;
let wavPath: string;
let uasPort: number;
let media: Socket;
const captured: PcapRecord[] = [];
const reference = signal(8000);

beforeAll(async () => {
  work = mkdtempSync(join(tmpdir(), "dialer-browser-"));
  wavPath = join(work, "microphone.wav");
  writeFileSync(wavPath, wavOf(signal(48_000), 48_000));
  const wsPort = await freeTcpPort();
  [stack, browser] = await Promise.all([
    startStack({ SIP_WS_PORT: String(wsPort) }, { DIALER_WS_URL: `ws://127.0.0.1:${wsPort}` }),
    chromium.launch({
      executablePath: CHROMIUM,
      args: [
        "--no-sandbox",
        "--use-fake-ui-for-media-stream",
        "--use-fake-device-for-media-stream",
        `--use-file-for-fake-audio-capture=${wavPath}`,
        "--allow-loopback-in-peer-connection",
        "--autoplay-policy=no-user-gesture-required",
      ],
    }),
  ]);
  uasPort = await freeUdpPort();
  account = await openAccount(stack, uasPort);
  // A verified number of the account, offered by the page as the call's caller ID (one wrangler d1 execute for both).
  const now = new Date().toISOString();
  await stack.sql(
    `UPDATE customers SET dialer_enabled = 1, pilot_ends_at = '2020-01-01T00:00:00.000Z' WHERE id = '${account.id}'; ` +
      `INSERT INTO verified_numbers (id, customer_id, number, label, verified_at, verification_method, created_at, updated_at) VALUES ('${crypto.randomUUID()}', '${account.id}', '+14155550100', 'Fraud desk', '${now}', 'call', '${now}', '${now}')`,
  );
  await syncLedger(account);
  // The destination's media address: everything that reaches it is captured.
  media = createSocket("udp4");
  await new Promise<void>((resolve) => media.bind(0, "127.0.0.1", resolve));
  media.on("message", (payload, from) => {
    captured.push({
      timeMs: Date.now(),
      src: { address: from.address, port: from.port },
      dst: { address: "127.0.0.1", port: media.address().port },
      payload,
    });
  });
}, 180_000);

afterAll(async () => {
  media?.close();
  await browser?.close();
  await stack?.stop();
  if (work) rmSync(work, { recursive: true, force: true });
});

describe("the web dialer in Chromium", () => {
  it("signs in with e-mail and password, and says why when it cannot", async () => {
    const email = `dialer-${Date.now().toString(36)}@carrier.test`;
    const signup = await fetch(`${stack.api}/api/auth/signup`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ email, password: "dialer page password 1", accept_terms: true }),
    });
    expect(signup.status).toBe(201);
    const page = await browser.newPage();
    await page.goto(`${stack.api}/dialer`);
    await page.waitForSelector("#sign-in:not([hidden])");
    await page.fill("#email", email);
    await page.fill("#password", "not the password");
    await page.click("#sign-in button");
    await page.waitForSelector("#sign-in-error:not([hidden])");
    await page.fill("#password", "dialer page password 1");
    await page.click("#sign-in button");
    await page.waitForSelector("#dialer:not([hidden])");
    expect(await page.textContent("#who")).toContain(email);
    // This account's dialer is off: no token, and the page says so.
    await page.fill("#number", "14155550123");
    await page.click("#call");
    await page.waitForSelector('#status[data-state="error"]');
    expect(await page.textContent("#status")).toBe("The web dialer is not enabled for this account.");
    await page.close();
  });

  it("calls through the node: the browser's audio reaches the destination and the recording, DTMF too; hung up from the page, charged, origin dialer", async () => {
    const destination = uas("uas-dialer.xml", uasPort, false, { RTP_PORT: String(media.address().port) });
    await destination.listening;
    const page = await browser.newPage();
    const violations: string[] = [];
    page.on("console", (msg) => {
      if (/Content Security Policy|Refused to/i.test(msg.text())) violations.push(msg.text());
    });
    const opened = await page.goto(`${stack.api}/dialer#access_token=${account.token}`);
    expect(opened?.headers()["content-security-policy"]).toContain("connect-src 'self' ws://127.0.0.1:");
    await page.waitForSelector("#dialer:not([hidden])");
    expect(page.url()).not.toContain("access_token");

    await page.waitForSelector("#caller-id-row:not([hidden])");
    await page.selectOption("#caller-id", "+14155550100");
    await page.fill("#number", "+1 415 555 0123");
    await page.click("#call");
    await page.waitForSelector('#status[data-state="in-call"]', { timeout: 20_000 });
    const callId = await page.getAttribute("#call-id", "data-call-id");
    expect(callId).toMatch(/^[0-9a-f-]{36}$/);
    // Deliberate: three seconds of the microphone (over 100 packets at the destination), a digit in the middle.
    await pause(1500);
    await page.click('#pad button[data-key="5"]');
    await pause(1500);
    await page.click("#mute");
    expect(await page.getAttribute("#mute", "aria-pressed")).toBe("true");
    expect(await page.textContent("#status")).toBe("In call · muted");
    await page.click("#mute");
    expect(await page.getAttribute("#mute", "aria-pressed")).toBe("false");
    const [minutes, seconds] = (await page.textContent("#timer"))!.split(":").map(Number);
    expect(minutes! * 60 + seconds!).toBeGreaterThanOrEqual(2);
    await page.click("#hangup");
    await page.waitForSelector('#status[data-state="ended"]');
    expect((await destination).code).toBe(0);

    // What the destination got: G.711 whose audio is the microphone's, and the digit.
    mkdirSync(RESULTS, { recursive: true });
    writePcapFile(join(RESULTS, "dialer-uas.pcap"), captured);
    // In arrival order: loopback does not reorder.
    const voice = captured.filter((p) => (p.payload[1]! & 0x7f) === 0);
    expect(voice.length).toBeGreaterThan(100);
    const heard = Int16Array.from(voice.flatMap((p) => [...p.payload.subarray(12)].map((b) => ULAW_TO_PCM[b]!)));
    const atDestination = correlation(heard, reference, 8000);
    console.log(`dialer test: ${voice.length} RTP packets at the destination, correlation with the WAV ${atDestination.toFixed(3)}`);
    expect(atDestination).toBeGreaterThan(0.5);
    // The measure tells audio apart: noise scores nowhere near.
    const noise = Int16Array.from({ length: 16_000 }, () => Math.round((Math.random() - 0.5) * 18_000));
    expect(correlation(noise, reference, 0)).toBeLessThan(0.2);
    const events = captured.filter((p) => (p.payload[1]! & 0x7f) === 101).map((p) => p.payload[12]);
    expect(events).toContain(5);

    // The record, as the page shows it and as the API has it.
    await page.waitForSelector("#record:not([hidden])", { timeout: 20_000 });
    expect(await page.textContent('#record-facts [data-field="origin"]')).toBe("dialer");
    expect(Number((await page.textContent('#record-facts [data-field="charged"]'))!.replace("US$", ""))).toBeGreaterThan(0);
    const record = await account.call(`/api/calls/${callId}`);
    expect(record).toMatchObject({
      id: callId,
      origin: "dialer",
      status: "completed",
      hangup_by: "caller",
      dialed: "+14155550123",
      ani: "+14155550100",
    });
    expect(record.charged_amount).toBeGreaterThan(0);
    expect((record.dtmf ?? []).map((d: { digit: string }) => d.digit)).toContain("5");

    // The recording: the microphone on the caller's channel.
    let wav: Uint8Array | null = null;
    for (let i = 0; i < 40 && !wav; i++) {
      const res = await fetch(`${stack.api}/api/calls/${callId}/recording`, { headers: { authorization: `Bearer ${account.token}` } });
      if (res.status === 200) wav = new Uint8Array(await res.arrayBuffer());
      else await pause(250);
    }
    expect(wav).not.toBeNull();
    const stereo = new Int16Array(wav!.buffer, wav!.byteOffset + 44, (wav!.length - 44) >> 1);
    const caller = stereo.filter((_, i) => i % 2 === 0);
    const inRecording = correlation(caller, reference, 8000);
    console.log(`dialer test: recording of ${(caller.length / 8000).toFixed(1)} s, caller channel correlation ${inRecording.toFixed(3)}`);
    expect(inRecording).toBeGreaterThan(0.5);

    await page.screenshot({ path: join(RESULTS, "dialer-after-call.png"), fullPage: true });
    expect(violations).toEqual([]);
    await page.close();
  });
});
