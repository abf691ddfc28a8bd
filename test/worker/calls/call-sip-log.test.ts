// The SIP log a node uploads (PUT /internal/calls/{id}/media/sip-log.jsonl: every message of both
// legs, each whole) and how the API serves it: /sip-log answers from the file over the ladder rows
// of the end event, with the plain-text ladder made from the raw messages; the evidence bundle
// builds sip-log.json and sip-log.txt the same way and carries the file itself. Another account's
// call is not found.
import { env } from "cloudflare:test";
import { exports } from "cloudflare:workers";
import { unzipSync } from "fflate";
import { describe, expect, it } from "vitest";
import { SIP_LOG_READ_BYTES } from "../../../worker/services/calls/sip-log.ts";
import { addSipMessages, insertCall } from "../fixtures/call-record.ts";
import { bodyOf, expectStatus, ORIGIN } from "../fixtures/client.ts";
import { createAccount, type Session } from "../fixtures/factory.ts";
import { node } from "../fixtures/node-client.ts";

const CALLER = "203.0.113.10:5060";
const NODE = "198.51.100.1:5060";
const CALLEE = "192.0.2.20:5060";

type Leg = "a" | "b";
const LEGS = {
  a: { peer: CALLER, callId: "caller-1@carrier.test", from: "<sip:14155550100@carrier.test>;tag=a1", to: "<sip:14155550123@198.51.100.1>" },
  b: { peer: CALLEE, callId: "ours-1@198.51.100.1", from: "<sip:14155550100@198.51.100.1>;tag=n1", to: "<sip:14155550123@192.0.2.20>" },
};
const SDP = "v=0\r\no=- 1 1 IN IP4 203.0.113.10\r\ns=-\r\nc=IN IP4 203.0.113.10\r\nt=0 0\r\nm=audio 4000 RTP/AVP 0\r\n";

/**
 * A message of one leg as the node writes it to sip-log.jsonl, `ms` after noon: `first` is its start
 * line, `cseq` its CSeq, `toTag` the To tag; the headers are joined with CRLF as on the wire.
 */
function wire(
  ms: number,
  direction: "in" | "out",
  leg: Leg,
  first: string,
  cseq: string,
  toTag: string | null,
  extra: string[] = [],
  body = "",
) {
  const { peer, callId, from, to } = LEGS[leg];
  const [method, seq] = [cseq.split(" ")[1]!, cseq.split(" ")[0]];
  const response = first.startsWith("SIP/2.0 ");
  const headers = [
    // The Via of whoever sent the request.
    `Via: SIP/2.0/UDP ${(direction === "in") === response ? NODE : peer};branch=z9hG4bK${leg}${seq}${method}`,
    `Call-ID: ${callId}`,
    `From: ${from}`,
    `To: ${to}${toTag ? `;tag=${toTag}` : ""}`,
    `CSeq: ${cseq}`,
    ...extra,
    `Content-Length: ${body.length}`,
  ];
  return {
    time_stamp: new Date(Date.UTC(2026, 2, 10, 12, 0, 0, ms)).toISOString(),
    direction,
    method: response ? method : first.split(" ")[0]!,
    status: response ? first.slice(8) : null,
    fromip: direction === "in" ? peer : NODE,
    toip: direction === "in" ? NODE : peer,
    fromtag: /;tag=([^;>\s]+)/.exec(from)![1]!,
    totag: toTag,
    first_line: first,
    raw: `${[first, ...headers].join("\r\n")}\r\n\r\n${body}`,
  };
}

/** An answered call hung up by the caller, both legs, as a node writes its sip-log.jsonl. */
const LOG = [
  wire(0, "in", "a", "INVITE sip:14155550123@198.51.100.1 SIP/2.0", "1 INVITE", null, ["Content-Type: application/sdp"], SDP),
  wire(1, "out", "a", "SIP/2.0 100 Trying", "1 INVITE", null),
  wire(20, "out", "b", "INVITE sip:14155550123@192.0.2.20 SIP/2.0", "1 INVITE", null, [
    'Authorization: Digest username="trunk7", response="0123abcd"',
  ]),
  wire(40, "in", "b", "SIP/2.0 180 Ringing", "1 INVITE", "c1"),
  wire(41, "out", "a", "SIP/2.0 180 Ringing", "1 INVITE", "n2"),
  wire(900, "in", "b", "SIP/2.0 200 OK", "1 INVITE", "c1"),
  wire(901, "out", "b", "ACK sip:14155550123@192.0.2.20 SIP/2.0", "1 ACK", "c1"),
  wire(902, "out", "a", "SIP/2.0 200 OK", "1 INVITE", "n2"),
  wire(950, "in", "a", "ACK sip:198.51.100.1:5060 SIP/2.0", "1 ACK", "n2"),
  wire(5000, "in", "a", "BYE sip:198.51.100.1:5060 SIP/2.0", "2 BYE", "n2"),
  wire(5001, "out", "a", "SIP/2.0 200 OK", "2 BYE", "n2"),
  wire(5002, "out", "b", "BYE sip:14155550123@192.0.2.20 SIP/2.0", "2 BYE", "c1"),
  wire(5030, "in", "b", "SIP/2.0 200 OK", "2 BYE", "c1"),
];

const jsonl = (lines: unknown[]) => new TextEncoder().encode(lines.map((l) => `${JSON.stringify(l)}\n`).join(""));

/** A call of `owner` with one ladder row from its end event, as the Worker keeps it without an upload. */
async function callWithLadder(owner: Session) {
  const call = await insertCall(owner);
  await addSipMessages(owner, call.id, [
    {
      time_stamp: call.started_at,
      direction: "in",
      method: "INVITE",
      from_ip: CALLER,
      to_ip: NODE,
      first_line: "INVITE sip:ladder SIP/2.0",
    },
  ]);
  return call;
}

async function download(path: string, auth: string) {
  const res = await exports.default.fetch(new Request(`${ORIGIN}${path}`, { headers: { Authorization: `Bearer ${auth}` } }));
  return { status: res.status, bytes: new Uint8Array(await res.arrayBuffer()) };
}

describe("an uploaded sip-log.jsonl", () => {
  it("is stored in R2 under the call as JSON lines, and marks nothing on the call", async () => {
    const owner = await createAccount();
    const call = await insertCall(owner);
    const upload = await node.upload(call.id, "sip-log.jsonl", jsonl(LOG));
    expect(upload.status, JSON.stringify(upload.body)).toBe(200);
    const key = `calls/${owner.account.id}/${call.id}/sip-log.jsonl`;
    expect(upload.body).toEqual({ key, size: jsonl(LOG).byteLength });
    const object = await env.MEDIA.get(key);
    expect(object?.httpMetadata?.contentType).toBe("application/x-ndjson");
    expect(await object?.text()).toBe(new TextDecoder().decode(jsonl(LOG)));
    const detail = (await owner.client.get(`/api/calls/${call.id}`)).body;
    expect(detail).toMatchObject({ recording_available: false, recording_wav_path: null, recording_pcap_paths: null });
  });

  it("is what /sip-log answers over the ladder rows: every message, and the text ladder from the raw messages", async () => {
    const owner = await createAccount();
    const call = await callWithLadder(owner);
    expect(bodyOf(await owner.client.get(`/api/calls/${call.id}/sip-log`), 200).messages).toHaveLength(1);

    expect((await node.upload(call.id, "sip-log.jsonl", jsonl(LOG))).status).toBe(200);
    const res = await owner.client.get(`/api/calls/${call.id}/sip-log`);
    expectStatus(res, 200);
    expect(res.body.call_id).toBe(call.id);
    expect(res.body.sip_call_id).toBe(call.sip_call_id);
    const summary = res.body.messages.map((m) => `${m.direction} ${m.status ?? m.method} ${m.fromip}>${m.toip}`);
    expect(summary).toEqual([
      `in INVITE ${CALLER}>${NODE}`,
      `out 100 Trying ${NODE}>${CALLER}`,
      `out INVITE ${NODE}>${CALLEE}`,
      `in 180 Ringing ${CALLEE}>${NODE}`,
      `out 180 Ringing ${NODE}>${CALLER}`,
      `in 200 OK ${CALLEE}>${NODE}`,
      `out ACK ${NODE}>${CALLEE}`,
      `out 200 OK ${NODE}>${CALLER}`,
      `in ACK ${CALLER}>${NODE}`,
      `in BYE ${CALLER}>${NODE}`,
      `out 200 OK ${NODE}>${CALLER}`,
      `out BYE ${NODE}>${CALLEE}`,
      `in 200 OK ${CALLEE}>${NODE}`,
    ]);
    // Each message in the SIP log's shape, its headers read from the raw message; the raw text stays in `text`.
    expect(res.body.messages[3]).toEqual({
      time_stamp: "2026-03-10T12:00:00.040Z",
      direction: "in",
      method: "INVITE",
      status: "180 Ringing",
      fromip: CALLEE,
      toip: NODE,
      fromtag: "n1",
      totag: "c1",
      first_line: "SIP/2.0 180 Ringing",
      headers: {
        Via: "SIP/2.0/UDP 198.51.100.1:5060;branch=z9hG4bKb1INVITE",
        "Call-ID": "ours-1@198.51.100.1",
        From: "<sip:14155550100@198.51.100.1>;tag=n1",
        To: "<sip:14155550123@192.0.2.20>;tag=c1",
        CSeq: "1 INVITE",
        "Content-Length": "0",
      },
    });
    expect(res.body.messages[0]?.headers?.["Content-Type"]).toBe("application/sdp");

    const text: string = res.body.text;
    expect(text).not.toContain("\r");
    expect(text.split("\n").filter((l) => l.startsWith("---- "))).toHaveLength(LOG.length);
    expect(text.startsWith(`---- 2026-03-10T12:00:00.000Z in ${CALLER} -> ${NODE}\nINVITE sip:14155550123@198.51.100.1 SIP/2.0\n`)).toBe(
      true,
    );
    expect(text).toContain(`Content-Type: application/sdp\nContent-Length: ${SDP.length}\n\nv=0\no=- 1 1 IN IP4 203.0.113.10\n`);
    // The digest response went on the wire, and stays as it was sent.
    expect(text).toContain('Authorization: Digest username="trunk7", response="0123abcd"');
    expect(
      text.endsWith(
        `---- 2026-03-10T12:00:05.030Z in ${CALLEE} -> ${NODE}\nSIP/2.0 200 OK\n${LOG[12]!.raw.split("\r\n").slice(1, -2).join("\n")}\n`,
      ),
    ).toBe(true);
  });

  it("skips lines that are not SIP log lines (one cut short by a crash), and is ignored when none is readable", async () => {
    const owner = await createAccount();
    const call = await callWithLadder(owner);
    const cut = `${JSON.stringify(LOG[2]).slice(0, 80)}`;
    const body = new TextEncoder().encode(`${JSON.stringify(LOG[0])}\n\n{"time_stamp": 1}\nnot json\n${JSON.stringify(LOG[1])}\n${cut}`);
    expect((await node.upload(call.id, "sip-log.jsonl", body)).status).toBe(200);
    const res = await owner.client.get(`/api/calls/${call.id}/sip-log`);
    expectStatus(res, 200);
    expect(res.body.messages.map((m) => m.first_line)).toEqual([LOG[0]!.first_line, LOG[1]!.first_line]);

    const other = await callWithLadder(owner);
    expect((await node.upload(other.id, "sip-log.jsonl", new TextEncoder().encode("nothing to read\n"))).status).toBe(200);
    const fallback = await owner.client.get(`/api/calls/${other.id}/sip-log`);
    expectStatus(fallback, 200);
    expect(fallback.body.messages.map((m) => m.first_line)).toEqual(["INVITE sip:ladder SIP/2.0"]);
  });

  it("is read up to SIP_LOG_READ_BYTES, whole lines only, the text saying how much more the file holds", async () => {
    const owner = await createAccount();
    const call = await insertCall(owner);
    const line = { ...LOG[5]!, raw: `${LOG[5]!.raw}${"x".repeat(4000)}` };
    const lineBytes = jsonl([line]).byteLength;
    const count = Math.ceil(SIP_LOG_READ_BYTES / lineBytes) + 10;
    const body = jsonl(Array.from({ length: count }, () => line));
    expect((await node.upload(call.id, "sip-log.jsonl", body)).status).toBe(200);
    const res = await owner.client.get(`/api/calls/${call.id}/sip-log`);
    expectStatus(res, 200);
    const shown = Math.floor(SIP_LOG_READ_BYTES / lineBytes);
    expect(res.body.messages).toHaveLength(shown);
    expect(res.body.text).toContain(`---- ${body.byteLength - shown * lineBytes} more bytes of messages not shown`);
  });

  it("makes the bundle's sip-log.json and sip-log.txt, and travels in it as sip-log.jsonl, hashed in the manifest", async () => {
    const owner = await createAccount();
    const call = await callWithLadder(owner);
    const file = jsonl(LOG);
    expect((await node.upload(call.id, "sip-log.jsonl", file)).status).toBe(200);
    const res = await download(`/api/calls/${call.id}/export`, owner.token);
    expect(res.status).toBe(200);
    const files = unzipSync(res.bytes);
    expect(Object.keys(files)).toEqual(["call.json", "sip-log.json", "sip-log.txt", "sip-log.jsonl", "manifest.json"]);
    const sipLog = bodyOf(await owner.client.get(`/api/calls/${call.id}/sip-log`), 200);
    expect(JSON.parse(new TextDecoder().decode(files["sip-log.json"]))).toEqual(sipLog);
    expect(sipLog.messages).toHaveLength(LOG.length);
    expect(new TextDecoder().decode(files["sip-log.txt"])).toBe(sipLog.text);
    expect(files["sip-log.jsonl"]).toEqual(file);
    const manifest = JSON.parse(new TextDecoder().decode(files["manifest.json"]));
    const digest = [...new Uint8Array(await crypto.subtle.digest("SHA-256", file))].map((b) => b.toString(16).padStart(2, "0")).join("");
    expect(manifest.files.find((f: any) => f.name === "sip-log.jsonl")).toEqual({
      name: "sip-log.jsonl",
      size: file.byteLength,
      sha256: digest,
      content_type: "application/x-ndjson",
    });
  });

  it("of another account's call is not found, by /sip-log or the export", async () => {
    const owner = await createAccount();
    const stranger = await createAccount();
    const call = await callWithLadder(owner);
    expect((await node.upload(call.id, "sip-log.jsonl", jsonl(LOG))).status).toBe(200);
    expect(bodyOf(await owner.client.get(`/api/calls/${call.id}/sip-log`), 200).messages).toHaveLength(LOG.length);
    for (const path of [`/api/calls/${call.id}/sip-log`, `/api/calls/${call.id}/export`]) {
      const res = await stranger.client.get(path);
      expectStatus(res, 404, path);
      expect(res.body).toEqual({ detail: "Call not found" });
    }
  });
});
