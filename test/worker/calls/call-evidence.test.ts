// A call's evidence: the bundle (GET /calls/{id}/export) and the PDF report (GET /calls/{id}/report.pdf),
// on calls placed and recorded through the node API, with verdicts and transcripts written as the
// pipeline writes them (SQL fixtures), and the per-account budget both share.
import { env } from "cloudflare:test";
import { exports } from "cloudflare:workers";
import { unzipSync } from "fflate";
import { describe, expect, it } from "vitest";
import { pdfText } from "../../shared/pdf-text.ts";
import { ORIGIN } from "../fixtures/client.ts";
import { addDestination } from "../fixtures/destination.ts";
import { createAccount, type Session } from "../fixtures/factory.ts";
import { addWhitelistEntry, v4Block } from "../fixtures/network.ts";
import { node } from "../fixtures/node-client.ts";

/** A PCM WAV header and `samples` samples of noise: the bytes only have to come back unchanged. */
function wavFile(samples = 4000): Uint8Array {
  const bytes = crypto.getRandomValues(new Uint8Array(44 + samples * 2));
  bytes.set(new TextEncoder().encode("RIFF"), 0);
  bytes.set(new TextEncoder().encode("WAVEfmt "), 8);
  return bytes;
}

/** A libpcap global header and random records. */
function pcapFile(size = 3000): Uint8Array {
  const bytes = crypto.getRandomValues(new Uint8Array(size));
  new DataView(bytes.buffer).setUint32(0, 0xa1b2c3d4, true);
  return bytes;
}

type Download = { status: number; headers: Headers; bytes: Uint8Array; json: any };

async function download(path: string, auth: string): Promise<Download> {
  const res = await exports.default.fetch(new Request(`${ORIGIN}${path}`, { headers: { Authorization: `Bearer ${auth}` } }));
  const bytes = new Uint8Array(await res.arrayBuffer());
  const json = (res.headers.get("content-type") ?? "").includes("json") ? JSON.parse(new TextDecoder().decode(bytes)) : null;
  return { status: res.status, headers: res.headers, bytes, json };
}

const INVITE_RAW =
  "INVITE sip:14155550123@sbc.carrier.test SIP/2.0\r\nVia: SIP/2.0/UDP 203.0.113.5:5060;branch=z9hG4bK-1\r\n" +
  "From: <sip:+14155550100@203.0.113.5>;tag=a1\r\nTo: <sip:14155550123@sbc.carrier.test>\r\nCall-ID: evidence-1\r\nCSeq: 1 INVITE\r\n\r\n";

/** An ended, answered call of `owner` (a fresh account when none), with its SIP ladder and quality. */
async function placedCall(owner?: Session) {
  owner ??= await createAccount({ company: "Evidence Carrier" });
  const block = v4Block();
  await addWhitelistEntry(owner, block.cidr);
  await addDestination(owner, { host: "sbc.carrier.test", is_default: true });
  const { body: ticket } = await node.admit({ src_ip: `${block.base}.5`, dialed: "14155550123" });
  expect(ticket.call_id).toBeTypeOf("string");
  const callId = ticket.call_id as string;
  const t0 = Date.now();
  const at = (ms: number) => new Date(t0 + ms).toISOString();
  await node.event(callId, { type: "answered", at: at(1_000) });
  const ladder = [
    {
      time_stamp: at(0),
      direction: "in",
      method: "INVITE",
      fromip: `${block.base}.5`,
      toip: "198.51.100.1",
      first_line: "INVITE",
      raw: INVITE_RAW,
    },
    {
      time_stamp: at(1_000),
      direction: "out",
      method: "INVITE",
      status: "200 OK",
      fromip: "198.51.100.1",
      toip: `${block.base}.5`,
      first_line: "SIP/2.0 200 OK",
      headers: { "Call-ID": "evidence-1", CSeq: "1 INVITE" },
    },
  ];
  const ended = await node.event(callId, {
    type: "ended",
    at: at(31_000),
    answered_at: at(1_000),
    sip_code: 200,
    hangup_by: "caller",
    end_reason: "bye",
    mos: 4.21,
    jitter_ms: 3.5,
    packet_loss_pct: 0.25,
    codec: "PCMU",
    ladder,
  });
  expect(ended.status, JSON.stringify(ended.body)).toBe(200);
  return { owner, callId };
}

/** The same, with a recording and both legs' captures uploaded as a SIP node uploads them. */
async function recordedCall(owner?: Session) {
  const placed = await placedCall(owner);
  const media = { "recording.wav": wavFile(), "caller.pcap": pcapFile(2500), "callee.pcap": pcapFile(4100) };
  for (const [name, bytes] of Object.entries(media)) expect((await node.upload(placed.callId, name, bytes)).status).toBe(200);
  return { ...placed, media };
}

/** The call's verdict, as the analysis pipeline writes it. */
async function addVerdict(owner: Session, callId: string, verdict: Record<string, unknown> = {}) {
  const v = {
    title: "Bank impersonation",
    probability: 92,
    category: "bank_impersonation",
    recommendation: "block",
    red_flags: ["Asks for a one-time code", "Claims to be the bank's fraud department"],
    ...verdict,
  };
  await env.DB.prepare(
    `INSERT INTO analyses (id, customer_id, call_id, ai_mode, provider, model, prompt_version, title, probability, category,
       entity, red_flags, language, summary, recommendation, keywords, cost_micros, created_at)
     VALUES (?, ?, ?, 'power', 'secret-provider', 'secret-model', 'v1', ?, ?, ?, 'First Bank', ?, 'en', ?, ?, '["otp"]', 1200, ?)`,
  )
    .bind(
      crypto.randomUUID(),
      owner.account.id,
      callId,
      v.title,
      v.probability,
      v.category,
      JSON.stringify(v.red_flags),
      "The caller posed as the bank and asked for the code sent by SMS.",
      v.recommendation,
      new Date().toISOString(),
    )
    .run();
}

type Segment = { speaker: string; start: number; end: number; text: string };

async function addTranscript(owner: Session, callId: string, segments: Segment[]) {
  await env.DB.prepare(
    `INSERT INTO transcripts (id, customer_id, call_id, provider, model, language, audio_seconds, text, segments, created_at)
     VALUES (?, ?, ?, 'secret-provider', 'secret-model', 'en', 30, ?, ?, ?)`,
  )
    .bind(
      crypto.randomUUID(),
      owner.account.id,
      callId,
      segments.map((s) => s.text).join(" "),
      JSON.stringify(segments),
      new Date().toISOString(),
    )
    .run();
}

const SEGMENTS: Segment[] = [
  { speaker: "caller", start: 1.2, end: 4, text: "Hello, this is the fraud department of First Bank." },
  { speaker: "callee", start: 4.5, end: 6, text: "Oh, is something wrong?" },
  { speaker: "caller", start: 6.3, end: 11, text: "Please read me the code we just sent you. Привет ☎" },
];

const sha256 = async (bytes: Uint8Array) =>
  [...new Uint8Array(await crypto.subtle.digest("SHA-256", bytes))].map((b) => b.toString(16).padStart(2, "0")).join("");
const text = (bytes: Uint8Array | undefined) => new TextDecoder().decode(bytes);

describe("GET /calls/{call_id}/export", () => {
  it("bundles the record, verdict, transcript, SIP log and media, each listed in the manifest with its SHA-256", async () => {
    const { owner, callId, media } = await recordedCall();
    await addVerdict(owner, callId, { probability: 40, title: "Earlier verdict", recommendation: "review" });
    await addVerdict(owner, callId);
    await addTranscript(owner, callId, SEGMENTS);

    const res = await download(`/api/calls/${callId}/export`, owner.token);
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toBe("application/zip");
    expect(res.headers.get("content-disposition")).toBe(`attachment; filename="call-${callId}-evidence.zip"`);
    expect(res.headers.get("cache-control")).toBe("private, no-store");

    const files = unzipSync(res.bytes);
    const names = Object.keys(files);
    expect(names).toEqual([
      "call.json",
      "analysis.json",
      "transcript.json",
      "sip-log.json",
      "sip-log.txt",
      "recording.wav",
      "caller.pcap",
      "callee.pcap",
      "manifest.json",
    ]);
    const manifest = JSON.parse(text(files["manifest.json"]));
    expect(manifest).toMatchObject({ call_id: callId, algorithm: "SHA-256" });
    expect(manifest.files.map((f: any) => f.name)).toEqual(names.slice(0, -1));
    for (const entry of manifest.files) {
      const bytes = files[entry.name]!;
      expect(entry.size, entry.name).toBe(bytes.byteLength);
      expect(entry.sha256, entry.name).toBe(await sha256(bytes));
    }
    for (const [name, bytes] of Object.entries(media)) {
      expect(files[name]).toEqual(bytes);
      expect(manifest.files.find((f: any) => f.name === name)).toMatchObject({ sha256: await sha256(bytes), size: bytes.byteLength });
    }
    expect(manifest.files.find((f: any) => f.name === "caller.pcap").content_type).toBe("application/vnd.tcpdump.pcap");

    // Each JSON part is what its read endpoint answers: the record, the newest verdict, the transcript, the SIP log.
    for (const [name, path] of [
      ["call.json", ""],
      ["analysis.json", "/analysis"],
      ["transcript.json", "/transcript"],
      ["sip-log.json", "/sip-log"],
    ] as const) {
      expect(JSON.parse(text(files[name])), name).toEqual((await owner.client.get(`/api/calls/${callId}${path}`)).body);
    }
    const analysis = JSON.parse(text(files["analysis.json"]));
    expect(analysis).toMatchObject({ title: "Bank impersonation", probability: 92, recommendation: "block", cost: 0.0012 });
    const transcript = JSON.parse(text(files["transcript.json"]));
    expect(transcript.segments).toEqual(SEGMENTS);
    for (const name of ["analysis.json", "transcript.json"]) expect(text(files[name])).not.toMatch(/secret-(provider|model)/);

    const sipLog = JSON.parse(text(files["sip-log.json"]));
    expect(sipLog).toMatchObject({ call_id: callId, messages: [{ method: "INVITE", direction: "in" }, { status: "200 OK" }] });
    const plain = text(files["sip-log.txt"]);
    expect(plain).toContain("Via: SIP/2.0/UDP 203.0.113.5:5060;branch=z9hG4bK-1");
    expect(plain).toContain("SIP/2.0 200 OK\nCall-ID: evidence-1");
  });

  it("leaves out what the call does not have: no recording, no captures, no verdict, no transcript", async () => {
    const { owner, callId } = await placedCall();
    const res = await download(`/api/calls/${callId}/export`, owner.token);
    expect(res.status).toBe(200);
    const files = unzipSync(res.bytes);
    expect(Object.keys(files)).toEqual(["call.json", "sip-log.json", "sip-log.txt", "manifest.json"]);
    const manifest = JSON.parse(text(files["manifest.json"]));
    expect(manifest.files.map((f: any) => f.name)).toEqual(["call.json", "sip-log.json", "sip-log.txt"]);
    expect(manifest.files[0].sha256).toBe(await sha256(files["call.json"]!));
  });

  it("hashes a recording of several megabytes as it streams it, chunk after chunk", async () => {
    const { owner, callId } = await placedCall();
    const big = new Uint8Array(6 * 1024 * 1024 + 123);
    for (let i = 0; i < big.length; i++) big[i] = (i * 2654435761) >>> 24;
    expect((await node.upload(callId, "recording.wav", big)).status).toBe(200);
    const files = unzipSync((await download(`/api/calls/${callId}/export`, owner.token)).bytes);
    const manifest = JSON.parse(text(files["manifest.json"]));
    const hash = await sha256(big);
    expect(files["recording.wav"]!.byteLength).toBe(big.byteLength);
    expect(manifest.files.find((f: any) => f.name === "recording.wav")).toMatchObject({ size: big.byteLength, sha256: hash });
    expect((await pdfText((await download(`/api/calls/${callId}/report.pdf`, owner.token)).bytes)).lines).toContain(hash);
  });

  it("skips a capture the call lists but R2 no longer holds", async () => {
    const { owner, callId, media } = await recordedCall();
    await env.MEDIA.delete(`calls/${owner.account.id}/${callId}/callee.pcap`);
    const files = unzipSync((await download(`/api/calls/${callId}/export`, owner.token)).bytes);
    expect(Object.keys(files)).toContain("caller.pcap");
    expect(Object.keys(files)).not.toContain("callee.pcap");
    expect(files["recording.wav"]).toEqual(media["recording.wav"]);
  });
});

describe("GET /calls/{call_id}/report.pdf", () => {
  it("is a PDF holding the verdict, the facts, the transcript excerpt and the same hashes as the export", async () => {
    const { owner, callId, media } = await recordedCall();
    await addVerdict(owner, callId);
    await addTranscript(owner, callId, SEGMENTS);

    const res = await download(`/api/calls/${callId}/report.pdf`, owner.token);
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toBe("application/pdf");
    expect(res.headers.get("content-disposition")).toBe(`inline; filename="call-${callId}-report.pdf"`);
    expect(Number(res.headers.get("content-length"))).toBe(res.bytes.byteLength);
    expect(text(res.bytes.subarray(0, 5))).toBe("%PDF-");

    const { lines } = await pdfText(res.bytes);
    const all = lines.join("\n");
    expect(all).toContain("fraud probability 92%");
    expect(all).toContain("BLOCK");
    expect(all).toContain("Bank impersonation");
    expect(all).toContain("Asks for a one-time code");
    expect(all).toContain("+14155550100");
    expect(all).toContain("14155550123");
    expect(lines).toContain("4.21"); // MOS
    expect(lines).toContain("0.25 %"); // packet loss
    expect(lines).toContain("caller"); // hung up by
    expect(lines).toContain("[0:04.5] Callee");
    expect(lines).toContain("Oh, is something wrong?");
    // Characters the standard fonts cannot encode print as "?" rather than failing the report.
    expect(all).toContain("Please read me the code we just sent you. ?????? ?");
    expect(all).toContain("Evidence Carrier");

    const manifest = JSON.parse(text(unzipSync((await download(`/api/calls/${callId}/export`, owner.token)).bytes)["manifest.json"]));
    for (const name of Object.keys(media)) {
      const hash = manifest.files.find((f: any) => f.name === name).sha256;
      expect(hash).toBe(await sha256(media[name as keyof typeof media]));
      expect(lines, name).toContain(hash);
    }
  });

  it("runs onto further pages for a long transcript, and says when a call has no verdict or media", async () => {
    const { owner, callId } = await placedCall();
    const long = Array.from({ length: 60 }, (_, i) => ({
      speaker: i % 2 ? "callee" : "caller",
      start: i * 5,
      end: i * 5 + 4,
      text: `Segment ${i}: ${"words that go on and on ".repeat(8)}`,
    }));
    await addTranscript(owner, callId, long);
    const res = await download(`/api/calls/${callId}/report.pdf`, owner.token);
    expect(res.status).toBe(200);
    const { pages, lines } = await pdfText(res.bytes);
    expect(pages).toBeGreaterThan(1);
    expect(lines).toContain(`Call ${callId}  \u00b7  page 1 of ${pages}`);
    const all = lines.join("\n");
    expect(all).toContain("No verdict: the call has not been analysed");
    expect(all).toContain("No recording or capture is stored for this call.");
    expect(all).toContain("Excerpt only");
    expect(all).not.toContain("Segment 45:");
  });
});

describe("evidence of another account's call", () => {
  it("is 404 on both, as is an unknown call", async () => {
    const { callId } = await recordedCall();
    const stranger = await createAccount();
    for (const path of [`/api/calls/${callId}/export`, `/api/calls/${callId}/report.pdf`, `/api/calls/${crypto.randomUUID()}/export`]) {
      const res = await download(path, stranger.token);
      expect(res.status, path).toBe(404);
      expect(res.json).toEqual({ detail: "Call not found" });
    }
  });
});

describe("the export budget", () => {
  it("allows 30 exports and reports together per account, then answers 429 too_many_exports with Retry-After", async () => {
    const { owner, callId } = await placedCall();
    for (let i = 0; i < 30; i++) {
      const path = i % 2 ? `/api/calls/${callId}/report.pdf` : `/api/calls/${callId}/export`;
      const res = await download(path, owner.token);
      expect(res.status, `request ${i + 1}`).toBe(200);
    }
    for (const path of [`/api/calls/${callId}/export`, `/api/calls/${callId}/report.pdf`]) {
      const res = await download(path, owner.token);
      expect(res.status).toBe(429);
      expect(res.json).toEqual({ detail: "too_many_exports" });
      const retryAfter = Number(res.headers.get("retry-after"));
      expect(retryAfter).toBeGreaterThanOrEqual(1);
      expect(retryAfter).toBeLessThanOrEqual(600);
      // Nothing was produced: no archive, no report.
      expect(res.headers.get("content-disposition")).toBeNull();
    }
    // The budget is the account's: another account's exports are not held back.
    const other = await placedCall();
    expect((await download(`/api/calls/${other.callId}/export`, other.owner.token)).status).toBe(200);
  });

  it("does not count a request for a call that is not the account's", async () => {
    const { owner, callId } = await placedCall();
    const limiter = env.LIMITER.get(env.LIMITER.idFromName(`call-exports:${owner.account.id}`));
    for (let i = 0; i < 3; i++) expect((await download(`/api/calls/${crypto.randomUUID()}/export`, owner.token)).status).toBe(404);
    expect((await limiter.check(30, 600)).count).toBe(0);
    expect((await download(`/api/calls/${callId}/export`, owner.token)).status).toBe(200);
    expect((await limiter.check(30, 600)).count).toBe(1);
  });
});
