// One call's reads: GET /api/calls/{id} (the detail with the full verdict and the transcript's
// description), /analysis, /transcript and /sip-log. Provider and model never leave the API, and
// another account's call is not found.
import { describe, expect, it } from "vitest";
import { addSipMessages, addTranscript, giveVerdict, insertCall } from "../fixtures/call-record.ts";
import { createAccount } from "../fixtures/factory.ts";
import { expectStatus } from "../fixtures/client.ts";

/** Asserts that no key anywhere in `body` names the provider or the model. */
function namesNoModel(body: unknown) {
  const text = JSON.stringify(body);
  expect(text).not.toMatch(/"(provider|model)"/);
  expect(text).not.toMatch(/secret-/);
}

const INVITE_RAW = [
  "INVITE sip:442079460000@sbc.carrier.test SIP/2.0",
  "Via: SIP/2.0/UDP 203.0.113.10:5060;branch=z9hG4bK1",
  "Call-ID: abc@carrier.test",
  "Content-Length: 0",
  "",
  "",
].join("\r\n");

describe("GET /api/calls/{id}", () => {
  it("holds the full current verdict, the newest transcript's description, case_id and captured headers", async () => {
    const owner = await createAccount();
    const call = await insertCall(owner, {
      captured_headers: { "X-Account": "4711" },
      transcript_summary: "A card services robocall.",
    });
    await giveVerdict(owner, call, { probability: 30, created_at: "2026-01-01T00:00:00.000Z" });
    const current = await giveVerdict(owner, call, {
      probability: 88,
      category: "credit_card_scam",
      recommendation: "block",
      title: "Card services",
      entity: "Visa",
      keywords: ["pin"],
      red_flags: ["Asks for a PIN"],
      route_alert: { kind: "delayed_playback" },
      summary: "The caller asks for the card's PIN.",
    });
    await addTranscript(owner, call.id, { created_at: "2026-01-01T00:00:00.000Z", language: "fr" });
    const transcript = await addTranscript(owner, call.id, { language: "en", audio_seconds: 31.5, cost_micros: 3_100 });

    const res = await owner.client.get(`/api/calls/${call.id}`);
    expectStatus(res, 200);
    expect(res.body.analysis).toEqual({
      id: current.id,
      ai_mode: "power",
      location: "ca",
      prompt_version: "v1",
      title: "Card services",
      probability: 88,
      category: "credit_card_scam",
      entity: "Visa",
      caller_identity: null,
      red_flags: ["Asks for a PIN"],
      language: "en",
      tcpa_comment: null,
      summary: "The caller asks for the card's PIN.",
      recommendation: "block",
      keywords: ["pin"],
      route_alert: { kind: "delayed_playback" },
      input_tokens: 1200,
      output_tokens: 300,
      cost: 0.004,
      latency_ms: 900,
      created_at: current.created_at,
    });
    expect(res.body.transcript).toEqual({
      id: transcript.id,
      location: "ca",
      language: "en",
      audio_seconds: 31.5,
      cost: 0.0031,
      created_at: transcript.created_at,
    });
    expect(res.body).toMatchObject({
      id: call.id,
      case_id: null,
      captured_headers: { "X-Account": "4711" },
      transcript_summary: "A card services robocall.",
      has_route_alert: true,
      recording_pcap_paths: null,
    });
    namesNoModel(res.body);
  });

  it("has analysis and transcript null before the pipeline ran", async () => {
    const owner = await createAccount();
    const call = await insertCall(owner);
    const res = await owner.client.get(`/api/calls/${call.id}`);
    expectStatus(res, 200);
    expect(res.body).toMatchObject({ analysis: null, transcript: null, case_id: null });
  });

  it("answers 422 for an id that is not a UUID and 404 for an unknown one", async () => {
    const owner = await createAccount();
    expect((await owner.client.get("/api/calls/not-a-call")).status).toBe(422);
    expect((await owner.client.get(`/api/calls/${crypto.randomUUID()}`)).body).toEqual({ detail: "Call not found" });
  });
});

describe("GET /api/calls/{id}/analysis", () => {
  it("is the newest analysis, without provider or model", async () => {
    const owner = await createAccount();
    const call = await insertCall(owner);
    await giveVerdict(owner, call, {
      probability: 10,
      category: "legitimate",
      recommendation: "allow",
      created_at: "2026-01-01T00:00:00.000Z",
    });
    const newest = await giveVerdict(owner, call, { probability: 75, category: "robocall", keywords: ["press one"] });
    const res = await owner.client.get(`/api/calls/${call.id}/analysis`);
    expectStatus(res, 200);
    expect(res.body).toMatchObject({ id: newest.id, probability: 75, category: "robocall", keywords: ["press one"], cost: 0.004 });
    namesNoModel(res.body);
  });

  it("answers 404 when the call has none", async () => {
    const owner = await createAccount();
    const call = await insertCall(owner);
    const res = await owner.client.get(`/api/calls/${call.id}/analysis`);
    expectStatus(res, 404);
    expect(res.body).toEqual({ detail: "Analysis not found" });
  });
});

describe("GET /api/calls/{id}/transcript", () => {
  it("is the newest transcript with its text and segments", async () => {
    const owner = await createAccount();
    const call = await insertCall(owner);
    await addTranscript(owner, call.id, { text: "old", created_at: "2026-01-01T00:00:00.000Z" });
    const segments = [
      { speaker: "caller", start: 0.5, end: 2, text: "Hello." },
      { speaker: "callee", start: 2.2, end: 4, text: "Who is this?" },
    ];
    const newest = await addTranscript(owner, call.id, { text: "Hello. Who is this?", segments });
    const res = await owner.client.get(`/api/calls/${call.id}/transcript`);
    expectStatus(res, 200);
    expect(res.body).toEqual({
      id: newest.id,
      location: "ca",
      language: "en",
      audio_seconds: 29.5,
      cost: 0.0025,
      created_at: newest.created_at,
      text: "Hello. Who is this?",
      segments,
    });
    namesNoModel(res.body);
  });

  it("answers 404 when the call has none", async () => {
    const owner = await createAccount();
    const call = await insertCall(owner);
    const res = await owner.client.get(`/api/calls/${call.id}/transcript`);
    expectStatus(res, 404);
    expect(res.body).toEqual({ detail: "Transcript not found" });
  });
});

describe("GET /api/calls/{id}/sip-log", () => {
  it("lists the messages in order and writes the ladder as text, raw messages whole", async () => {
    const owner = await createAccount();
    const call = await insertCall(owner);
    await addSipMessages(owner, call.id, [
      {
        time_stamp: "2026-03-10T12:00:00.000Z",
        direction: "in",
        method: "INVITE",
        from_ip: "203.0.113.10:5060",
        to_ip: "198.51.100.1:5060",
        from_tag: "a1",
        first_line: "INVITE sip:442079460000@sbc.carrier.test SIP/2.0",
        headers: { "Call-ID": "abc@carrier.test" },
        raw: INVITE_RAW,
      },
      {
        time_stamp: "2026-03-10T12:00:00.900Z",
        direction: "out",
        method: "INVITE",
        status: "200 OK",
        from_ip: "198.51.100.1:5060",
        to_ip: "203.0.113.10:5060",
        from_tag: "a1",
        to_tag: "b2",
        first_line: "SIP/2.0 200 OK",
        headers: { "Call-ID": "abc@carrier.test", Via: ["SIP/2.0/UDP 203.0.113.10:5060;branch=z9hG4bK1"] },
      },
    ]);
    const res = await owner.client.get(`/api/calls/${call.id}/sip-log`);
    expectStatus(res, 200);
    expect(res.body.call_id).toBe(call.id);
    expect(res.body.sip_call_id).toBe(call.sip_call_id);
    expect(res.body.messages).toEqual([
      {
        time_stamp: "2026-03-10T12:00:00.000Z",
        direction: "in",
        method: "INVITE",
        status: null,
        fromip: "203.0.113.10:5060",
        toip: "198.51.100.1:5060",
        fromtag: "a1",
        totag: null,
        first_line: "INVITE sip:442079460000@sbc.carrier.test SIP/2.0",
        headers: { "Call-ID": "abc@carrier.test" },
      },
      {
        time_stamp: "2026-03-10T12:00:00.900Z",
        direction: "out",
        method: "INVITE",
        status: "200 OK",
        fromip: "198.51.100.1:5060",
        toip: "203.0.113.10:5060",
        fromtag: "a1",
        totag: "b2",
        first_line: "SIP/2.0 200 OK",
        headers: { "Call-ID": "abc@carrier.test", Via: ["SIP/2.0/UDP 203.0.113.10:5060;branch=z9hG4bK1"] },
      },
    ]);
    expect(res.body.text).toBe(
      [
        "---- 2026-03-10T12:00:00.000Z in 203.0.113.10:5060 -> 198.51.100.1:5060",
        "INVITE sip:442079460000@sbc.carrier.test SIP/2.0",
        "Via: SIP/2.0/UDP 203.0.113.10:5060;branch=z9hG4bK1",
        "Call-ID: abc@carrier.test",
        "Content-Length: 0",
        "",
        "---- 2026-03-10T12:00:00.900Z out 198.51.100.1:5060 -> 203.0.113.10:5060",
        "SIP/2.0 200 OK",
        "Call-ID: abc@carrier.test",
        "Via: SIP/2.0/UDP 203.0.113.10:5060;branch=z9hG4bK1",
        "",
      ].join("\n"),
    );
    expect(res.body.text).not.toContain("\r");
  });

  it("is empty for a call with no ladder recorded", async () => {
    const owner = await createAccount();
    const call = await insertCall(owner, { status: "ringing" });
    const res = await owner.client.get(`/api/calls/${call.id}/sip-log`);
    expectStatus(res, 200);
    expect(res.body).toEqual({ call_id: call.id, sip_call_id: call.sip_call_id, messages: [], text: "" });
  });
});

describe("another account's call", () => {
  it("is not found by detail, analysis, transcript, sip-log or inspect, even with everything recorded", async () => {
    const owner = await createAccount();
    const stranger = await createAccount();
    const call = await insertCall(owner);
    await giveVerdict(owner, call, { probability: 90, entity: "Visa" });
    await addTranscript(owner, call.id);
    await addSipMessages(owner, call.id, [
      { time_stamp: call.started_at, direction: "in", method: "INVITE", from_ip: "a", to_ip: "b", first_line: "INVITE sip:x SIP/2.0" },
    ]);
    for (const tail of ["", "/analysis", "/transcript", "/sip-log", "/inspect"]) {
      expect((await owner.client.get(`/api/calls/${call.id}${tail}`)).status, `owner ${tail}`).toBe(200);
      const res = await stranger.client.get(`/api/calls/${call.id}${tail}`);
      expectStatus(res, 404, `stranger ${tail}`);
      expect(res.body).toEqual({ detail: "Call not found" });
    }
  });
});
