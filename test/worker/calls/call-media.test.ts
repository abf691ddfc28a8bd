// A call's media: the SIP node uploads the recording and the captures through the internal API;
// the customer fetches them (recording with ranges, a token for players, pcap or zip of pcaps).
import { env } from "cloudflare:test";
import { exports } from "cloudflare:workers";
import { unzipSync } from "fflate";
import { SignJWT } from "jose";
import { describe, expect, it } from "vitest";
import { bodyOf, expectStatus, ORIGIN } from "../fixtures/client.ts";
import { addDestination } from "../fixtures/destination.ts";
import { createAccount, type Session } from "../fixtures/factory.ts";
import { addWhitelistEntry, v4Block } from "../fixtures/network.ts";
import { node } from "../fixtures/node-client.ts";

/** A valid PCM WAV: 8 kHz, 16-bit, mono, a 440 Hz tone of `seconds`. */
function wavFile(seconds = 0.5): Uint8Array {
  const rate = 8000;
  const samples = Math.round(rate * seconds);
  const bytes = new Uint8Array(44 + samples * 2);
  const view = new DataView(bytes.buffer);
  const ascii = (at: number, text: string) => [...text].forEach((ch, i) => view.setUint8(at + i, ch.charCodeAt(0)));
  ascii(0, "RIFF");
  view.setUint32(4, 36 + samples * 2, true);
  ascii(8, "WAVE");
  ascii(12, "fmt ");
  view.setUint32(16, 16, true);
  view.setUint16(20, 1, true); // PCM
  view.setUint16(22, 1, true); // mono
  view.setUint32(24, rate, true);
  view.setUint32(28, rate * 2, true);
  view.setUint16(32, 2, true);
  view.setUint16(34, 16, true);
  ascii(36, "data");
  view.setUint32(40, samples * 2, true);
  for (let i = 0; i < samples; i++) view.setInt16(44 + i * 2, Math.round(8000 * Math.sin((2 * Math.PI * 440 * i) / rate)), true);
  return bytes;
}

/** A libpcap file (microsecond, Ethernet) holding `packets` records of random payload. */
function pcapFile(packets = 5): Uint8Array {
  const records = Array.from({ length: packets }, () => crypto.getRandomValues(new Uint8Array(60 + Math.floor(Math.random() * 1300))));
  const bytes = new Uint8Array(24 + records.reduce((n, r) => n + 16 + r.length, 0));
  const view = new DataView(bytes.buffer);
  view.setUint32(0, 0xa1b2c3d4, true);
  view.setUint16(4, 2, true);
  view.setUint16(6, 4, true);
  view.setUint32(16, 65535, true);
  view.setUint32(20, 1, true);
  let at = 24;
  records.forEach((r, i) => {
    view.setUint32(at, 1_780_000_000 + i, true);
    view.setUint32(at + 8, r.length, true);
    view.setUint32(at + 12, r.length, true);
    bytes.set(r, at + 16);
    at += 16 + r.length;
  });
  return bytes;
}

type Download = { status: number; headers: Headers; bytes: Uint8Array; json: any };

/** A GET whose body may be binary; `auth` is a bearer token, or none. */
async function download(path: string, auth?: string, headers: Record<string, string> = {}): Promise<Download> {
  const url = path.startsWith("http") ? path : `${ORIGIN}${path}`;
  const res = await exports.default.fetch(
    new Request(url, { headers: { ...(auth ? { Authorization: `Bearer ${auth}` } : {}), ...headers } }),
  );
  const bytes = new Uint8Array(await res.arrayBuffer());
  const json = (res.headers.get("content-type") ?? "").includes("json") ? JSON.parse(new TextDecoder().decode(bytes)) : null;
  return { status: res.status, headers: res.headers, bytes, json };
}

/** An ended call of a fresh account, placed through the node API. */
async function placedCall(owner?: Session) {
  owner ??= await createAccount();
  const block = v4Block();
  await addWhitelistEntry(owner, block.cidr);
  await addDestination(owner, { host: "sbc.carrier.test", is_default: true });
  const { body: ticket } = await node.admit({ src_ip: `${block.base}.5`, dialed: "14155550123" });
  expect(ticket.call_id).toBeTypeOf("string");
  const t0 = Date.now();
  const at = (ms: number) => new Date(t0 + ms).toISOString();
  await node.event(ticket.call_id, { type: "answered", at: at(1_000) });
  await node.event(ticket.call_id, { type: "ended", at: at(31_000), answered_at: at(1_000), sip_code: 200, hangup_by: "caller" });
  return { owner, callId: ticket.call_id as string };
}

/** A call with a recording and both legs' captures uploaded. */
async function recordedCall(owner?: Session) {
  const placed = await placedCall(owner);
  const media = { wav: wavFile(), caller: pcapFile(4), callee: pcapFile(6) };
  // The callee's capture first: the call still lists the caller's first.
  for (const [name, bytes] of [
    ["callee.pcap", media.callee],
    ["recording.wav", media.wav],
    ["caller.pcap", media.caller],
  ] as const) {
    const res = await node.upload(placed.callId, name, bytes);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
  }
  return { ...placed, media, prefix: `calls/${placed.owner.account.id}/${placed.callId}/` };
}

const storedKeys = async (prefix: string) => (await env.MEDIA.list({ prefix })).objects.map((o) => o.key);

describe("PUT /internal/calls/{call_id}/media/{name}", () => {
  it("takes a recording larger than the Worker's 64 KiB body limit (issue 20, finding 10)", async () => {
    const { callId } = await placedCall();
    const wav = wavFile(5);
    expect(wav.byteLength).toBeGreaterThan(64 * 1024);
    const res = await node.upload(callId, "recording.wav", wav);
    expect(res.status).toBe(200);
    expect(res.body.size).toBe(wav.byteLength);
  });

  it("stores each file in R2 under the call and points the call at it", async () => {
    const { owner, callId } = await placedCall();
    const wav = wavFile();
    const res = await node.upload(callId, "recording.wav", wav);
    expect(res.status).toBe(200);
    const key = `calls/${owner.account.id}/${callId}/recording.wav`;
    expect(res.body).toEqual({ key, size: wav.byteLength });
    const object = await env.MEDIA.get(key);
    expect(object?.httpMetadata?.contentType).toBe("audio/wav");
    expect(new Uint8Array(await object!.arrayBuffer())).toEqual(wav);

    await node.upload(callId, "callee.pcap", pcapFile());
    await node.upload(callId, "caller.pcap", pcapFile());
    const call = await owner.client.get(`/api/calls/${callId}`);
    expectStatus(call, 200);
    expect(call.body).toMatchObject({
      recording_available: true,
      recording_wav_path: key,
      recording_pcap_paths: [`calls/${owner.account.id}/${callId}/caller.pcap`, `calls/${owner.account.id}/${callId}/callee.pcap`],
    });
    expect((await env.MEDIA.head(`calls/${owner.account.id}/${callId}/caller.pcap`))?.httpMetadata?.contentType).toBe(
      "application/vnd.tcpdump.pcap",
    );
  });

  it("takes a file whose call's record has not reached D1 yet, and the record points at it once it arrives", async () => {
    const { owner, callId } = await placedCall();
    // Removed here, put back below: stands for a record still on its way through the call-records queue.
    const row = (await env.DB.prepare("SELECT * FROM calls WHERE id = ?").bind(callId).first<Record<string, unknown>>())!;
    await env.DB.prepare("DELETE FROM calls WHERE id = ?").bind(callId).run();
    const wav = wavFile();
    const put = (query: string) =>
      exports.default.fetch(
        new Request(`${ORIGIN}/internal/calls/${callId}/media/recording.wav${query}`, {
          method: "PUT",
          body: wav,
          headers: { Authorization: `Bearer ${env.NODE_TOKEN}`, "Content-Type": "audio/wav", "Content-Length": String(wav.byteLength) },
        }),
      );
    // Without the account named, nobody can tell the call exists yet.
    expect((await put("")).status).toBe(404);
    expect((await put(`?customer_id=${crypto.randomUUID()}`)).status).toBe(404);
    const taken = await put(`?customer_id=${owner.account.id}`);
    expect(taken.status).toBe(200);
    const key = `calls/${owner.account.id}/${callId}/recording.wav`;
    expect(new Uint8Array(await (await env.MEDIA.get(key))!.arrayBuffer())).toEqual(wav);

    const columns = Object.keys(row);
    await env.DB.prepare(`INSERT INTO calls (${columns.join(", ")}) VALUES (${columns.map(() => "?").join(", ")})`)
      .bind(...columns.map((c) => row[c]))
      .run();
    const deadline = Date.now() + 10_000;
    const read = async () => bodyOf(await owner.client.get(`/api/calls/${callId}`), 200);
    let call = await read();
    while (!call.recording_available && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      call = await read();
    }
    expect(call).toMatchObject({ recording_available: true, recording_wav_path: key });
  });

  it("overwrites on a second upload and lists each capture once", async () => {
    const { owner, callId, prefix } = await recordedCall();
    const again = pcapFile(9);
    expect((await node.upload(callId, "caller.pcap", again)).status).toBe(200);
    expect((await node.upload(callId, "callee.pcap", pcapFile())).status).toBe(200);
    const call = await owner.client.get(`/api/calls/${callId}`);
    expectStatus(call, 200);
    expect(call.body.recording_pcap_paths).toEqual([`${prefix}caller.pcap`, `${prefix}callee.pcap`]);
    expect(new Uint8Array(await (await env.MEDIA.get(`${prefix}caller.pcap`))!.arrayBuffer())).toEqual(again);
    expect((await storedKeys(prefix)).sort()).toEqual([`${prefix}callee.pcap`, `${prefix}caller.pcap`, `${prefix}recording.wav`]);
  });

  it("keeps both captures when the two legs upload at once", async () => {
    const { owner, callId } = await placedCall();
    const uploads = await Promise.all([node.upload(callId, "callee.pcap", pcapFile()), node.upload(callId, "caller.pcap", pcapFile())]);
    expect(uploads.map((u) => u.status)).toEqual([200, 200]);
    const base = `calls/${owner.account.id}/${callId}/`;
    expect(bodyOf(await owner.client.get(`/api/calls/${callId}`), 200).recording_pcap_paths).toEqual([
      `${base}caller.pcap`,
      `${base}callee.pcap`,
    ]);
  });

  it("refuses an unknown name (422 naming it), a missing node token (401) and an unknown call (404), storing nothing", async () => {
    const { owner, callId } = await placedCall();
    const prefix = `calls/${owner.account.id}/${callId}/`;

    const badName = await node.upload(callId, "video.mp4", wavFile());
    expect(badName.status).toBe(422);
    expect(badName.body.detail[0]).toMatchObject({ loc: ["path", "name"], type: "enum" });
    expect(badName.body.detail[0].msg).toContain("recording.wav");

    expect((await node.upload(callId, "recording.wav", wavFile(), { Authorization: "" })).status).toBe(401);
    expect((await node.upload(callId, "recording.wav", wavFile(), { Authorization: `Bearer ${"x".repeat(40)}` })).status).toBe(401);

    const unknown = crypto.randomUUID();
    const missing = await node.upload(unknown, "recording.wav", wavFile());
    expect(missing.status).toBe(404);
    expect(missing.body).toEqual({ detail: "Call not found" });

    expect(await storedKeys(prefix)).toEqual([]);
    expect((await env.MEDIA.list({ prefix: "calls/" })).objects.filter((o) => o.key.includes(unknown))).toEqual([]);
    const call = await owner.client.get(`/api/calls/${callId}`);
    expect(call.body).toMatchObject({ recording_available: false, recording_wav_path: null, recording_pcap_paths: null });
  });

  it("refuses a body larger than allowed (413) or not matching its Content-Length (400), storing nothing", async () => {
    const { owner, callId } = await placedCall();
    const prefix = `calls/${owner.account.id}/${callId}/`;
    const tooLarge = await node.upload(callId, "recording.wav", wavFile(0.01), { "Content-Length": String(512 * 1024 * 1024 + 1) });
    expect(tooLarge.status).toBe(413);
    const short = await node.upload(callId, "recording.wav", wavFile(0.01), { "Content-Length": "100000" });
    expect(short.status).toBe(400);
    expect(await storedKeys(prefix)).toEqual([]);
    expect(bodyOf(await owner.client.get(`/api/calls/${callId}`), 200).recording_available).toBe(false);
  });
});

describe("GET /api/calls/{call_id}/recording", () => {
  it("answers the exact WAV with its headers", async () => {
    const { owner, callId, media } = await recordedCall();
    const res = await download(`/api/calls/${callId}/recording`, owner.token);
    expect(res.status).toBe(200);
    expect(res.bytes).toEqual(media.wav);
    expect(res.headers.get("content-type")).toBe("audio/wav");
    expect(res.headers.get("content-length")).toBe(String(media.wav.byteLength));
    expect(res.headers.get("content-disposition")).toBe(`inline; filename="call-${callId}.wav"`);
    expect(res.headers.get("cache-control")).toBe("private, no-store");
    expect(res.headers.get("accept-ranges")).toBe("bytes");
  });

  it("answers one byte range with 206 so players can seek", async () => {
    const { owner, callId, media } = await recordedCall();
    const size = media.wav.byteLength;
    const part = await download(`/api/calls/${callId}/recording`, owner.token, { Range: "bytes=100-199" });
    expect(part.status).toBe(206);
    expect(part.bytes).toEqual(media.wav.slice(100, 200));
    expect(part.headers.get("content-range")).toBe(`bytes 100-199/${size}`);
    expect(part.headers.get("content-length")).toBe("100");
    expect(part.headers.get("content-type")).toBe("audio/wav");

    const tail = await download(`/api/calls/${callId}/recording`, owner.token, { Range: "bytes=-10" });
    expect(tail.status).toBe(206);
    expect(tail.bytes).toEqual(media.wav.slice(size - 10));

    const open = await download(`/api/calls/${callId}/recording`, owner.token, { Range: `bytes=${size - 44}-` });
    expect(open.status).toBe(206);
    expect(open.bytes).toEqual(media.wav.slice(size - 44));
    expect(open.headers.get("content-range")).toBe(`bytes ${size - 44}-${size - 1}/${size}`);

    const beyond = await download(`/api/calls/${callId}/recording`, owner.token, { Range: `bytes=${size}-` });
    expect(beyond.status).toBe(416);
    expect(beyond.headers.get("content-range")).toBe(`bytes */${size}`);

    // Several ranges are not served as multipart: the whole file comes back.
    const several = await download(`/api/calls/${callId}/recording`, owner.token, { Range: "bytes=0-9,20-29" });
    expect(several.status).toBe(200);
    expect(several.bytes).toEqual(media.wav);
  });

  it("answers with an API key too", async () => {
    const { owner, callId, media } = await recordedCall();
    const key = await owner.client.post("/api/auth/api-keys", { name: "player" });
    expectStatus(key, 201);
    const res = await exports.default.fetch(
      new Request(`${ORIGIN}/api/calls/${callId}/recording`, { headers: { "X-API-Key": key.body.key } }),
    );
    expect(res.status).toBe(200);
    expect(new Uint8Array(await res.arrayBuffer())).toEqual(media.wav);
  });

  it("answers 401 with no credential and 404 when the call has no recording", async () => {
    const { owner, callId } = await placedCall();
    expect((await download(`/api/calls/${callId}/recording`)).status).toBe(401);
    const none = await download(`/api/calls/${callId}/recording`, owner.token);
    expect(none.status).toBe(404);
    expect(none.json).toEqual({ detail: "No recording for this call" });
  });
});

describe("GET /api/calls/{call_id}/recording-token", () => {
  it("gives a short-lived link that plays without an Authorization header", async () => {
    const { owner, callId, media } = await recordedCall();
    const res = await owner.client.get(`/api/calls/${callId}/recording-token`);
    expectStatus(res, 200);
    expect(res.body.expires_in).toBe(300);
    const url = new URL(res.body.url);
    expect(`${url.origin}${url.pathname}`).toBe(`${ORIGIN}/api/calls/${callId}/recording`);
    expect(url.searchParams.get("t")).toBeTruthy();

    const played = await download(res.body.url);
    expect(played.status).toBe(200);
    expect(played.bytes).toEqual(media.wav);
    const seek = await download(res.body.url, undefined, { Range: "bytes=44-99" });
    expect(seek.status).toBe(206);
    expect(seek.bytes).toEqual(media.wav.slice(44, 100));
  });

  it("refuses a tampered token, another call's token, an expired one and an access token as t (401)", async () => {
    const a = await recordedCall();
    const b = await recordedCall(a.owner);
    const link = bodyOf(await a.owner.client.get(`/api/calls/${a.callId}/recording-token`), 200).url as string;
    const token = new URL(link).searchParams.get("t")!;

    const [header, payload, signature] = token.split(".") as [string, string, string];
    const flipped = `${signature.slice(0, -2)}${signature.at(-2) === "A" ? "B" : "A"}${signature.at(-1)}`;
    const tampered = await download(`/api/calls/${a.callId}/recording?t=${header}.${payload}.${flipped}`);
    expect(tampered.status).toBe(401);
    // A payload naming call B, under call A's signature.
    const claims = JSON.parse(atob(payload.replace(/-/g, "+").replace(/_/g, "/")));
    const forged = btoa(JSON.stringify({ ...claims, call: b.callId }))
      .replace(/=+$/, "")
      .replace(/\+/g, "-")
      .replace(/\//g, "_");
    expect((await download(`/api/calls/${b.callId}/recording?t=${header}.${forged}.${signature}`)).status).toBe(401);

    // Call A's token does not open call B of the same account.
    const crossed = await download(`/api/calls/${b.callId}/recording?t=${token}`);
    expect(crossed.status).toBe(401);
    // A wrong t is refused even beside a good Authorization header.
    expect((await download(`/api/calls/${a.callId}/recording?t=${header}.${payload}.${flipped}`, a.owner.token)).status).toBe(401);

    const secret = new TextEncoder().encode(env.JWT_SECRET);
    const expired = await new SignJWT({ cid: a.owner.account.id, call: a.callId })
      .setProtectedHeader({ alg: "HS256", typ: "JWT" })
      .setAudience("media:recording")
      .setSubject(claims.sub)
      .setIssuedAt(Math.floor(Date.now() / 1000) - 600)
      .setExpirationTime(Math.floor(Date.now() / 1000) - 300)
      .sign(secret);
    expect((await download(`/api/calls/${a.callId}/recording?t=${expired}`)).status).toBe(401);

    const asAccess = await download(`/api/calls/${a.callId}/recording?t=${a.owner.token}`);
    expect(asAccess.status).toBe(401);
    expect(asAccess.json).toEqual({ detail: "Invalid or expired recording token" });
  });

  it("is not an access token anywhere else", async () => {
    const { owner, callId } = await recordedCall();
    const token = new URL(bodyOf(await owner.client.get(`/api/calls/${callId}/recording-token`), 200).url).searchParams.get("t")!;
    expect((await download("/api/auth/me", token)).status).toBe(401);
    expect((await download(`/api/calls/${callId}`, token)).status).toBe(401);
    expect((await download(`/api/calls/${callId}/pcap?t=${token}`)).status).toBe(401);
    expect((await download(`/api/calls/${callId}/recording-token?t=${token}`)).status).toBe(401);
    expect((await download(`/api/calls/${callId}/recording`, token)).status).toBe(401);
  });

  it("answers 404 when the call has no recording", async () => {
    const { owner, callId } = await placedCall();
    await node.upload(callId, "caller.pcap", pcapFile());
    expect((await owner.client.get(`/api/calls/${callId}/recording-token`)).status).toBe(404);
  });
});

describe("GET /api/calls/{call_id}/pcap", () => {
  it("answers a zip of every leg's capture when there were several", async () => {
    const { owner, callId, media } = await recordedCall();
    const res = await download(`/api/calls/${callId}/pcap`, owner.token);
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toBe("application/zip");
    expect(res.headers.get("content-disposition")).toBe(`attachment; filename="call-${callId}-pcap.zip"`);
    expect(res.headers.get("cache-control")).toBe("private, no-store");
    const entries = unzipSync(res.bytes);
    expect(Object.keys(entries)).toEqual(["caller.pcap", "callee.pcap"]);
    expect(entries["caller.pcap"]).toEqual(media.caller);
    expect(entries["callee.pcap"]).toEqual(media.callee);
  });

  it("streams captures of several megabytes through the zip unchanged", async () => {
    const { owner, callId } = await placedCall();
    const caller = pcapFile(2_500);
    const callee = pcapFile(3_000);
    expect((await node.upload(callId, "caller.pcap", caller)).status).toBe(200);
    expect((await node.upload(callId, "callee.pcap", callee)).status).toBe(200);
    const res = await download(`/api/calls/${callId}/pcap`, owner.token);
    expect(res.status).toBe(200);
    const entries = unzipSync(res.bytes);
    expect(entries["caller.pcap"]!.byteLength).toBe(caller.byteLength);
    expect(entries["caller.pcap"]).toEqual(caller);
    expect(entries["callee.pcap"]).toEqual(callee);
  });

  it("answers the capture itself when there was one leg", async () => {
    const { owner, callId } = await placedCall();
    const caller = pcapFile(3);
    await node.upload(callId, "caller.pcap", caller);
    const res = await download(`/api/calls/${callId}/pcap`, owner.token);
    expect(res.status).toBe(200);
    expect(res.bytes).toEqual(caller);
    expect(res.headers.get("content-type")).toBe("application/vnd.tcpdump.pcap");
    expect(res.headers.get("content-length")).toBe(String(caller.byteLength));
    expect(res.headers.get("content-disposition")).toBe(`attachment; filename="call-${callId}-caller.pcap"`);
  });

  it("answers 404 when nothing was captured", async () => {
    const { owner, callId } = await placedCall();
    const res = await download(`/api/calls/${callId}/pcap`, owner.token);
    expect(res.status).toBe(404);
    expect(res.json).toEqual({ detail: "No capture for this call" });
  });
});

describe("tenancy", () => {
  it("answers another account 404 on the recording, its token and the captures", async () => {
    const { callId } = await recordedCall();
    const stranger = await createAccount();
    for (const path of [`/api/calls/${callId}/recording`, `/api/calls/${callId}/recording-token`, `/api/calls/${callId}/pcap`]) {
      const res = await download(path, stranger.token);
      expect(res.status, path).toBe(404);
      expect(res.json, path).toEqual({ detail: "Call not found" });
    }
    // The stranger's own recording token does not reach across either.
    const own = await recordedCall(stranger);
    const link = bodyOf(await stranger.client.get(`/api/calls/${own.callId}/recording-token`), 200).url as string;
    expect((await download(`/api/calls/${callId}/recording?t=${new URL(link).searchParams.get("t")}`)).status).toBe(401);
  });
});
