// Reading the audio stream of SDP bodies and anchoring it at the relay.
import { describe, expect, it } from "vitest";
import { firstCodec, parseSdpAudio, rewriteSdp } from "../../sip-node/media/sdp.ts";

const crlf = (lines: string[]) => lines.map((l) => `${l}\r\n`).join("");

// sipp's uac.xml offer.
const SIPP_OFFER = crlf([
  "v=0",
  "o=user1 53655765 2353687637 IN IP4 127.0.0.1",
  "s=-",
  "c=IN IP4 127.0.0.1",
  "t=0 0",
  "m=audio 6000 RTP/AVP 0",
  "a=rtpmap:0 PCMU/8000",
]);

const PHONE_OFFER = crlf([
  "v=0",
  "o=- 3912345678 3912345678 IN IP4 198.51.100.7",
  "s=call",
  "c=IN IP4 198.51.100.7",
  "t=0 0",
  "a=sendrecv",
  "m=audio 49170 RTP/AVP 8 0 18 9 101 13",
  "c=IN IP4 198.51.100.8",
  "a=rtpmap:8 pcma/8000",
  "a=rtpmap:101 telephone-event/8000",
  "a=fmtp:101 0-16",
  "a=rtcp:49171 IN IP4 198.51.100.8",
  "a=ptime:20",
  "a=sendonly",
  "m=video 51372 RTP/AVP 96",
  "a=rtpmap:96 H264/90000",
  "a=rtcp:51373",
]);

describe("parseSdpAudio", () => {
  it("reads sipp's offer", () => {
    const media = parseSdpAudio(SIPP_OFFER)!;
    expect(media).toEqual({
      address: "127.0.0.1",
      port: 6000,
      payloadTypes: new Map([[0, { encoding: "PCMU", clockRate: 8000 }]]),
      telephoneEventPt: null,
      direction: "sendrecv",
    });
    expect(firstCodec(media, SIPP_OFFER)).toBe("PCMU");
  });

  it("prefers the media-level connection and direction, knows static payload types, keeps m= order", () => {
    const media = parseSdpAudio(PHONE_OFFER)!;
    expect(media.address).toBe("198.51.100.8");
    expect(media.port).toBe(49170);
    expect(media.direction).toBe("sendonly");
    expect(media.telephoneEventPt).toBe(101);
    expect([...media.payloadTypes]).toEqual([
      [8, { encoding: "PCMA", clockRate: 8000 }],
      [0, { encoding: "PCMU", clockRate: 8000 }],
      [18, { encoding: "G729", clockRate: 8000 }],
      [9, { encoding: "G722", clockRate: 8000 }],
      [101, { encoding: "telephone-event", clockRate: 8000 }],
      [13, { encoding: "CN", clockRate: 8000 }],
    ]);
    expect(firstCodec(media, PHONE_OFFER)).toBe("PCMA");
  });

  it("takes the session-level connection and direction when the stream has none, and LF endings", () => {
    const sdp =
      "v=0\no=- 1 1 IN IP6 2001:db8::1\ns=-\nc=IN IP6 2001:db8::1\nt=0 0\na=inactive\nm=audio 7078 RTP/AVP 96 8\na=rtpmap:96 opus/48000/2\n";
    const media = parseSdpAudio(sdp)!;
    expect(media).toMatchObject({ address: "2001:db8::1", port: 7078, direction: "inactive" });
    expect(media.payloadTypes.get(96)).toEqual({ encoding: "OPUS", clockRate: 48000 });
    expect(firstCodec(media, sdp)).toBe("OPUS");
  });

  it("skips other streams before the audio, and reports a rejected stream as port 0", () => {
    const sdp = crlf(["v=0", "m=video 0 RTP/AVP 96", "c=IN IP4 192.0.2.9", "m=audio 0 RTP/AVP 0"]);
    expect(parseSdpAudio(sdp)).toMatchObject({ address: null, port: 0 });
    expect(parseSdpAudio(crlf(["v=0", "c=IN IP4 192.0.2.1", "m=video 5000 RTP/AVP 96"]))).toBeNull();
    expect(parseSdpAudio("")).toBeNull();
  });

  it("names no codec when the first payload type is unknown, and skips telephone-event and CN", () => {
    const unknownFirst = crlf(["v=0", "c=IN IP4 192.0.2.1", "m=audio 5000 RTP/AVP 97 0"]);
    expect(firstCodec(parseSdpAudio(unknownFirst)!, unknownFirst)).toBeNull();
    const eventsFirst = crlf(["v=0", "c=IN IP4 192.0.2.1", "m=audio 5000 RTP/AVP 101 13 8", "a=rtpmap:101 telephone-event/8000"]);
    expect(firstCodec(parseSdpAudio(eventsFirst)!, eventsFirst)).toBe("PCMA");
  });
});

describe("rewriteSdp", () => {
  it("anchors sipp's offer at the relay and keeps every other byte", () => {
    expect(rewriteSdp(SIPP_OFFER, "203.0.113.5", 20000)).toBe(
      crlf([
        "v=0",
        "o=user1 53655765 2353687637 IN IP4 203.0.113.5",
        "s=-",
        "c=IN IP4 203.0.113.5",
        "t=0 0",
        "m=audio 20000 RTP/AVP 0",
        "a=rtpmap:0 PCMU/8000",
      ]),
    );
  });

  it("rewrites every c=, the audio port and a=rtcp, and disables the other streams", () => {
    const rewritten = rewriteSdp(PHONE_OFFER, "203.0.113.5", 20000);
    expect(rewritten).toBe(
      crlf([
        "v=0",
        "o=- 3912345678 3912345678 IN IP4 203.0.113.5",
        "s=call",
        "c=IN IP4 203.0.113.5",
        "t=0 0",
        "a=sendrecv",
        "m=audio 20000 RTP/AVP 8 0 18 9 101 13",
        "c=IN IP4 203.0.113.5",
        "a=rtpmap:8 pcma/8000",
        "a=rtpmap:101 telephone-event/8000",
        "a=fmtp:101 0-16",
        "a=rtcp:20001 IN IP4 203.0.113.5",
        "a=ptime:20",
        "a=sendonly",
        "m=video 0 RTP/AVP 96",
        "a=rtpmap:96 H264/90000",
      ]),
    );
    expect(parseSdpAudio(rewritten)).toMatchObject({ address: "203.0.113.5", port: 20000, direction: "sendonly" });
  });

  it("switches to IN IP6 for an IPv6 relay address, and keeps LF endings and a missing final one", () => {
    const sdp = "v=0\no=- 1 2 IN IP4 192.0.2.1\ns=-\nc=IN IP4 192.0.2.1\nt=0 0\nm=audio 4000 RTP/AVP 8\na=rtcp:4001";
    expect(rewriteSdp(sdp, "2001:db8::5", 30000)).toBe(
      "v=0\no=- 1 2 IN IP6 2001:db8::5\ns=-\nc=IN IP6 2001:db8::5\nt=0 0\nm=audio 30000 RTP/AVP 8\na=rtcp:30001",
    );
  });

  it("leaves a rejected audio stream rejected", () => {
    const sdp = crlf(["v=0", "o=- 1 1 IN IP4 192.0.2.1", "c=IN IP4 192.0.2.1", "m=audio 0 RTP/AVP 0", "m=audio 5000 RTP/AVP 8"]);
    expect(rewriteSdp(sdp, "203.0.113.5", 20000)).toBe(
      crlf(["v=0", "o=- 1 1 IN IP4 203.0.113.5", "c=IN IP4 203.0.113.5", "m=audio 0 RTP/AVP 0", "m=audio 0 RTP/AVP 8"]),
    );
  });
});
