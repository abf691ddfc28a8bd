// The share page in a real browser (Debian's chromium driven by playwright-core, installed by
// scripts/ensure-test-tools.sh): the Worker under `wrangler dev`, one shared call with a verdict,
// a transcript and a recording. A wrong password is refused, the right one shows the call, the
// audio element loads the recording through the view token, a revoked link says so, and the page
// runs under its CSP without a violation. The unlocked page is saved as
// test-results/share-page-unlocked.png.
import { spawn } from "node:child_process";
import { randomBytes, randomUUID } from "node:crypto";
import { cpSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { chromium, type Browser } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { freeTcpPort } from "../../scripts/lib/ports.mjs";
import { startWranglerDev } from "../../scripts/lib/wrangler-dev.mjs";
import { migratedState } from "../sip-node/harness.ts";

const CHROMIUM = process.env.CHROMIUM_PATH ?? "/usr/bin/chromium";
const RESULTS = new URL("../../test-results/", import.meta.url).pathname;

let state: string;
let wrangler: Awaited<ReturnType<typeof startWranglerDev>>;
let browser: Browser;
let base: string;
let shared: { url: string; password: string };
let revokedUrl: string;

function wrangle(args: string[]): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn("wrangler", [...args, "--local", "--persist-to", state], {
      env: { ...process.env, WRANGLER_SEND_METRICS: "false", CI: "true" },
      stdio: ["ignore", "ignore", "pipe"],
    });
    let err = "";
    child.stderr.on("data", (d) => (err += d));
    child.on("exit", (code) => (code === 0 ? resolve() : reject(new Error(`wrangler ${args[0]}: ${err}`))));
  });
}

async function api(path: string, init: { method?: string; body?: unknown; token?: string } = {}) {
  const res = await fetch(`${base}${path}`, {
    method: init.method ?? (init.body === undefined ? "GET" : "POST"),
    headers: { "content-type": "application/json", ...(init.token ? { authorization: `Bearer ${init.token}` } : {}) },
    body: init.body === undefined ? undefined : JSON.stringify(init.body),
  });
  return { status: res.status, body: (await res.json()) as any };
}

/** Two seconds of a 440 Hz tone, 8 kHz mono 16-bit PCM. */
function toneWav(): Buffer {
  const frames = 16_000;
  const wav = Buffer.alloc(44 + frames * 2);
  wav.write("RIFF", 0);
  wav.writeUInt32LE(36 + frames * 2, 4);
  wav.write("WAVEfmt ", 8);
  wav.writeUInt32LE(16, 16);
  wav.writeUInt16LE(1, 20);
  wav.writeUInt16LE(1, 22);
  wav.writeUInt32LE(8000, 24);
  wav.writeUInt32LE(16_000, 28);
  wav.writeUInt16LE(2, 32);
  wav.writeUInt16LE(16, 34);
  wav.write("data", 36);
  wav.writeUInt32LE(frames * 2, 40);
  for (let i = 0; i < frames; i++) wav.writeInt16LE(Math.round(8000 * Math.sin((2 * Math.PI * 440 * i) / 8000)), 44 + i * 2);
  return wav;
}

const sqlText = (v: string | null) => (v === null ? "NULL" : `'${v.replace(/'/g, "''")}'`);

const RECORDING_KEY = `recordings/${randomUUID()}.wav`;

/** The recording in the Worker's local R2, put while wrangler dev starts. */
function putRecording(): Promise<void> {
  const wavPath = join(state, "recording.wav");
  writeFileSync(wavPath, toneWav());
  return wrangle(["r2", "object", "put", `call-shield-media/${RECORDING_KEY}`, "--file", wavPath]);
}

/** A recorded, analysed and transcribed call of the account, written as the pipeline leaves it. */
async function seedCall(customerId: string): Promise<string> {
  const callId = randomUUID();
  const key = RECORDING_KEY;
  const now = new Date().toISOString();
  const started = new Date(Date.now() - 120_000).toISOString();
  const segments = JSON.stringify([
    { speaker: "caller", start: 0.4, end: 2.5, text: "This is Visa card security." },
    { speaker: "caller", start: 2.6, end: 5.0, text: "Read me the PIN of your card to unblock it." },
  ]);
  const statements = [
    `INSERT INTO calls (id, customer_id, sip_call_id, origin, direction, status, src_ip, ani, dialed, dest_host, dest_port,
      dest_transport, dest_kind, started_at, answered_at, ended_at, duration_sec, billsec, charged_micros, transcript_status,
      analysis_status, processing, sampled, recording_available, recording_wav_path, has_route_alert, created_at, updated_at)
     VALUES ('${callId}', '${customerId}', '${callId}@carrier.test', 'sip', 'inbound', 'completed', '203.0.113.10',
      '+14155550100', '18005550199', 'sbc.carrier.test', 5060, 'udp', 'sip', '${started}', '${started}', '${now}', 42, 60, 12000,
      'done', 'done', 'full', 1, 1, '${key}', 0, '${started}', '${now}')`,
    `INSERT INTO analyses (id, customer_id, call_id, ai_mode, prompt_version, title, probability, category, entity, red_flags,
      language, summary, recommendation, input_tokens, output_tokens, cost_micros, latency_ms, created_at)
     VALUES ('${randomUUID()}', '${customerId}', '${callId}', 'power', 'v1', 'Fake Visa fraud desk', 94, 'credit_card_scam',
      'Visa', ${sqlText(JSON.stringify(["Asks for the card PIN", "Claims the card is blocked"]))}, 'en',
      'The caller impersonated Visa and asked for the PIN.', 'block', 1200, 300, 4000, 900, '${now}')`,
    `INSERT INTO transcripts (id, customer_id, call_id, language, audio_seconds, cost_micros, text, segments, created_at)
     VALUES ('${randomUUID()}', '${customerId}', '${callId}', 'en', 5, 2500,
      'This is Visa card security. Read me the PIN of your card to unblock it.', ${sqlText(segments)}, '${now}')`,
  ];
  await wrangle(["d1", "execute", "DB", "--command", statements.join(";\n")]);
  return callId;
}

beforeAll(async () => {
  const started = Date.now();
  state = mkdtempSync(join(tmpdir(), "share-page-"));
  // Every migration already applied (startWranglerDev's `migrations apply` then has nothing to do).
  const template = await migratedState();
  if (template) cpSync(template, state, { recursive: true });
  const secret = () => randomBytes(32).toString("base64url");
  const recordingStored = putRecording();
  wrangler = await startWranglerDev({
    port: await freeTcpPort(),
    persistTo: state,
    stdio: "ignore",
    vars: { JWT_SECRET: secret(), ENCRYPTION_KEY: secret(), NODE_TOKEN: secret() },
  });
  [, browser] = await Promise.all([wrangler.ready, chromium.launch({ executablePath: CHROMIUM, args: ["--no-sandbox"] }), recordingStored]);
  base = wrangler.base;

  const signup = await api("/api/auth/signup", {
    body: {
      email: `share-${randomBytes(4).toString("hex")}@carrier.test`,
      password: "share page password 1",
      company: "Northwind Telecom",
      accept_terms: true,
    },
  });
  expect(signup.status, JSON.stringify(signup.body)).toBe(201);
  const token = signup.body.access_token as string;
  const seeded = Date.now();
  const callId = await seedCall(signup.body.customer.id);
  console.log(`share page test: wrangler dev ready in ${seeded - started} ms, call seeded in ${Date.now() - seeded} ms`);
  const made = await api(`/api/calls/${callId}/share`, { token, body: { label: "For the Visa fraud desk" } });
  expect(made.status, JSON.stringify(made.body)).toBe(201);
  shared = made.body;
  const other = await api(`/api/calls/${callId}/share`, { token, body: {} });
  expect((await api(`/api/calls/shares/${other.body.id}`, { token, method: "DELETE" })).status).toBe(200);
  revokedUrl = other.body.url;
}, 180_000);

afterAll(async () => {
  await browser?.close();
  await wrangler?.stop();
  if (state) rmSync(state, { recursive: true, force: true });
});

describe("the share page in Chromium", () => {
  it("refuses a wrong password, then shows the call and plays its recording for the right one", async () => {
    const page = await browser.newPage();
    const violations: string[] = [];
    const foreign: string[] = [];
    page.on("console", (msg) => {
      if (/Content Security Policy|Refused to/i.test(msg.text())) violations.push(msg.text());
    });
    page.on("request", (req) => {
      if (!req.url().startsWith(base)) foreign.push(req.url());
    });

    const opened = await page.goto(shared.url);
    expect(opened?.headers()["content-security-policy"]).toContain("default-src 'none'");
    await page.waitForSelector("#unlock:not([hidden])");
    expect(await page.textContent("#shared-by")).toBe("Shared by Northwind Telecom");

    await page.fill("#password", "AAAA-BBBB-CCCC-DDDD");
    await page.click("#unlock button");
    await page.waitForSelector("#unlock-error:not([hidden])");
    expect(await page.textContent("#unlock-error")).toContain("Wrong password");
    expect(await page.isHidden("#call")).toBe(true);

    const recording = page.waitForResponse((res) => res.url().includes("/recording?t="));
    await page.fill("#password", shared.password);
    await page.click("#unlock button");
    await page.waitForSelector("#call:not([hidden])");
    expect(await page.textContent("#probability")).toBe("94");
    expect(await page.textContent("#verdict-title")).toBe("Fake Visa fraud desk");
    expect(await page.$$eval("#red-flags li", (items) => items.map((li) => li.textContent))).toEqual([
      "Asks for the card PIN",
      "Claims the card is blocked",
    ]);
    expect(await page.textContent("#facts")).toContain("+14155550100");
    expect(await page.textContent("#transcript")).toContain("Read me the PIN of your card to unblock it.");

    const audio = await recording;
    expect([200, 206]).toContain(audio.status());
    expect(audio.headers()["content-type"]).toBe("audio/wav");
    // The browser decoded it: the element knows the recording's length (two seconds). Its
    // loadedmetadata event awaited once, not polled: Playwright's waitForFunction evaluates its
    // predicate on every poll, with eval for a string, which the page's CSP refuses.
    type Audio = {
      readyState: number;
      duration: number;
      addEventListener(type: string, listener: () => void, options: { once: boolean }): void;
    };
    const duration = await page.$eval(
      "#audio",
      (el) =>
        new Promise<number>((resolve) => {
          const audio = el as unknown as Audio;
          if (audio.readyState >= 1) return resolve(audio.duration);
          audio.addEventListener("loadedmetadata", () => resolve(audio.duration), { once: true });
          setTimeout(() => resolve(Number.NaN), 20_000); // never decoded: the expectation below says so
        }),
    );
    expect(duration).toBeGreaterThan(1.9);

    mkdirSync(RESULTS, { recursive: true });
    await page.screenshot({ path: join(RESULTS, "share-page-unlocked.png"), fullPage: true });
    expect(violations).toEqual([]);
    expect(foreign).toEqual([]);
    await page.close();
  });

  it("says a revoked link is revoked, without asking for the password", async () => {
    const page = await browser.newPage();
    await page.goto(revokedUrl);
    await page.waitForSelector("#status.closed");
    expect(await page.textContent("#status")).toContain("revoked");
    expect(await page.isHidden("#unlock")).toBe(true);
    await page.close();
  });
});
