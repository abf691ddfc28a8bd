import { describe, expect, it } from "vitest";
import { StreamFramer } from "../../sip-node/sip/framer.ts";
import { addHeader, addHeaderFirst, canonicalName, header, headers, removeHeader, setHeader } from "../../sip-node/sip/headers.ts";
import { DEFAULT_LIMITS, SipParseError, type SipMessage, type SipRequest, type SipResponse } from "../../sip-node/sip/message.ts";
import { SipMessageError, parseCSeq, parseMessage, parseNameAddr, parseUri, parseVia } from "../../sip-node/sip/parser.ts";
import { serializeMessage } from "../../sip-node/sip/serializer.ts";

const enc = new TextEncoder();
const dec = new TextDecoder();

/** A message on the wire: lines joined with CRLF, the blank line, then the body. */
function wire(lines: string[], body = ""): Uint8Array {
  return enc.encode(`${lines.join("\r\n")}\r\n\r\n${body}`);
}

const SDP = "v=0\r\no=- 1 1 IN IP4 192.0.2.1\r\ns=-\r\nc=IN IP4 192.0.2.1\r\nt=0 0\r\nm=audio 4000 RTP/AVP 0\r\n";

function invite(extra: string[] = [], body = SDP, contentLength: number | null = enc.encode(body).length): string[] {
  return [
    "INVITE sip:+14155550123@gw.example.net;user=phone SIP/2.0",
    "Via: SIP/2.0/UDP 203.0.113.5:5060;branch=z9hG4bK776asdhds;rport",
    "Max-Forwards: 70",
    "To: <sip:+14155550123@gw.example.net;user=phone>",
    'From: "Alice" <sip:+16045550100@carrier.example.com>;tag=1928301774',
    "Call-ID: a84b4c76e66710@203.0.113.5",
    "CSeq: 314159 INVITE",
    "Contact: <sip:+16045550100@203.0.113.5:5060>",
    "Content-Type: application/sdp",
    ...extra,
    ...(contentLength === null ? [] : [`Content-Length: ${contentLength}`]),
  ];
}

const OK_RESPONSE = [
  "SIP/2.0 200 OK",
  "Via: SIP/2.0/UDP 203.0.113.5:5060;branch=z9hG4bK776asdhds;received=198.51.100.7;rport=5062",
  "To: <sip:bob@example.net>;tag=a6c85cf",
  "From: <sip:alice@example.com>;tag=1928301774",
  "Call-ID: a84b4c76e66710@203.0.113.5",
  "CSeq: 314159 INVITE",
  "Content-Length: 0",
];

/** The error parseMessage throws for bytes (fails the test when it parses). */
function parseError(bytes: Uint8Array, limits = DEFAULT_LIMITS): SipParseError {
  try {
    parseMessage(bytes, limits);
  } catch (error) {
    expect(error).toBeInstanceOf(SipParseError);
    return error as SipParseError;
  }
  throw new Error("expected a SipParseError");
}

describe("parseMessage: requests and responses", () => {
  it("parses an INVITE: request line, ordered canonical headers, body", () => {
    const msg = parseMessage(wire(invite(), SDP)) as SipRequest;
    expect(msg.kind).toBe("request");
    expect(msg.method).toBe("INVITE");
    expect(msg.uri).toBe("sip:+14155550123@gw.example.net;user=phone");
    expect(msg.version).toBe("SIP/2.0");
    expect(msg.headers.map(([name]) => name)).toEqual([
      "Via",
      "Max-Forwards",
      "To",
      "From",
      "Call-ID",
      "CSeq",
      "Contact",
      "Content-Type",
      "Content-Length",
    ]);
    expect(header(msg, "From")).toBe('"Alice" <sip:+16045550100@carrier.example.com>;tag=1928301774');
    expect(dec.decode(msg.body)).toBe(SDP);
    expect(msg.body).toBeInstanceOf(Uint8Array);
  });

  it("parses responses, including an empty and a UTF-8 reason phrase", () => {
    const msg = parseMessage(wire(OK_RESPONSE));
    expect(msg).toMatchObject({ kind: "response", status: 200, reason: "OK", version: "SIP/2.0" });
    expect(msg.body.length).toBe(0);
    const empty = parseMessage(wire(["SIP/2.0 100 ", ...OK_RESPONSE.slice(1)]));
    expect(empty).toMatchObject({ status: 100, reason: "" });
    const bare = parseMessage(wire(["SIP/2.0 180", ...OK_RESPONSE.slice(1)]));
    expect(bare).toMatchObject({ status: 180, reason: "" });
    const utf8 = parseMessage(wire(["SIP/2.0 486 Occupé, rappelez", ...OK_RESPONSE.slice(1)]));
    expect(utf8).toMatchObject({ status: 486, reason: "Occupé, rappelez" });
  });

  it("rejects malformed status lines", () => {
    for (const line of ["SIP/2.0 2000 OK", "SIP/2.0 20 OK", "SIP/2.0 099 Low", "SIP/2.0 700 High", "SIP/3.0 200 OK", "SIP/2.0"]) {
      expect(parseError(wire([line, ...OK_RESPONSE.slice(1)])).status).toBe(400);
    }
  });

  it("answers 505 for another SIP version and 400 for a malformed request line, with the partial message", () => {
    const vers = parseError(wire(["OPTIONS sip:a@example.com SIP/3.0", ...invite().slice(1)]));
    expect(vers.status).toBe(505);
    expect(vers).toBeInstanceOf(SipMessageError);
    expect(header((vers as SipMessageError).partial, "Call-ID")).toBe("a84b4c76e66710@203.0.113.5");
    for (const line of [
      "INVITE sip:a@example.com HTTP/1.1",
      "INVITE  sip:a@example.com SIP/2.0",
      "INVITE sip:a@example.com SIP/2.0 ",
      "INVITE sip:a@example.com",
      "INV(ITE sip:a@example.com SIP/2.0",
      "INVITE <sip:a@example.com> SIP/2.0",
      "INVITE sip:a@example.com?Subject=x SIP/2.0",
    ]) {
      expect(parseError(wire([line, ...invite().slice(1)])).status, line).toBe(400);
    }
  });

  it("names every missing mandatory header", () => {
    const error = parseError(
      wire(["OPTIONS sip:a@example.com SIP/2.0", "Via: SIP/2.0/UDP h.example.com;branch=z9hG4bK1", "CSeq: 1 OPTIONS"]),
    );
    expect(error.status).toBe(400);
    expect(error.message).toBe("missing mandatory headers: To, From, Call-ID, Max-Forwards");
    const response = parseError(wire(OK_RESPONSE.filter((line) => !line.startsWith("Via"))));
    expect(response.message).toBe("missing mandatory header: Via");
    // Responses carry no Max-Forwards.
    expect(() => parseMessage(wire(OK_RESPONSE))).not.toThrow();
  });

  it("requires the CSeq method to match the request method", () => {
    const lines = invite().map((line) => (line.startsWith("CSeq") ? "CSeq: 314159 BYE" : line));
    const error = parseError(wire(lines, SDP));
    expect(error.status).toBe(400);
    expect(error.message).toMatch(/CSeq method "BYE" does not match request method "INVITE"/);
  });

  it("rejects repeated single-value headers and bad Max-Forwards, Call-ID or Date", () => {
    expect(parseError(wire([...invite(), "Call-ID: other@host"], SDP)).message).toBe("more than one Call-ID header");
    expect(parseError(wire([...invite(), "t: <sip:x@example.com>"], SDP)).message).toBe("more than one To header");
    const mf = (value: string) => invite().map((line) => (line.startsWith("Max-Forwards") ? `Max-Forwards: ${value}` : line));
    expect(parseError(wire(mf("256"), SDP)).status).toBe(400);
    expect(parseError(wire(mf("-1"), SDP)).status).toBe(400);
    expect(parseMessage(wire(mf("0"), SDP)).kind).toBe("request");
    const callId = invite().map((line) => (line.startsWith("Call-ID") ? "Call-ID: a b" : line));
    expect(parseError(wire(callId, SDP)).message).toBe("invalid Call-ID");
    expect(parseMessage(wire(invite(["Date: Sat, 13 Nov 2010 23:29:00 GMT"]), SDP)).kind).toBe("request");
    expect(parseError(wire(invite(["Date: Sat, 13 Nov 2010 23:29:00 PST"]), SDP)).status).toBe(400);
  });

  it("skips leading CRLFs and rejects empty or bare-LF datagrams", () => {
    expect(parseMessage(enc.encode(`\r\n\r\n${dec.decode(wire(OK_RESPONSE))}`)).kind).toBe("response");
    expect(parseError(enc.encode("\r\n\r\n")).message).toBe("empty message");
    expect(parseError(enc.encode(`${OK_RESPONSE.join("\n")}\n\n`)).status).toBe(400);
    expect(parseError(enc.encode(OK_RESPONSE.join("\r\n").replace("Call-ID", "X: a\rb\r\nCall-ID") + "\r\n\r\n")).status).toBe(400);
  });

  it("reads a datagram without the blank line as headers only", () => {
    const bytes = enc.encode(`${OK_RESPONSE.join("\r\n")}\r\n`);
    expect(parseMessage(bytes)).toMatchObject({ status: 200, body: new Uint8Array(0) });
  });
});

describe("parseMessage: header names, folding and lists", () => {
  it("expands every compact form and matches names case-insensitively", () => {
    const msg = parseMessage(
      wire(
        [
          "OPTIONS sip:a@example.com SIP/2.0",
          "v: SIP/2.0/UDP h.example.com;branch=z9hG4bK1",
          "max-forwards: 70",
          "t: <sip:a@example.com>",
          "F: <sip:b@example.com>;tag=1",
          "i: abc@h",
          "cseq: 1 OPTIONS",
          "m: <sip:b@h.example.com>",
          "e: gzip",
          "c: text/plain",
          "s: hello",
          "k: timer",
          "o: refer",
          "r: <sip:c@example.com>",
          "b: <sip:d@example.com>",
          "x: 1800;refresher=uac",
          "u: talk",
          'www-authenticate: Digest realm="x"',
          "X-Custom-Header: kept as written",
          "l: 5",
        ],
        "hello",
      ),
    );
    expect(msg.headers.map(([name]) => name)).toEqual([
      "Via",
      "Max-Forwards",
      "To",
      "From",
      "Call-ID",
      "CSeq",
      "Contact",
      "Content-Encoding",
      "Content-Type",
      "Subject",
      "Supported",
      "Event",
      "Refer-To",
      "Referred-By",
      "Session-Expires",
      "Allow-Events",
      "WWW-Authenticate",
      "X-Custom-Header",
      "Content-Length",
    ]);
    expect(header(msg, "x-custom-header")).toBe("kept as written");
    expect(dec.decode(msg.body)).toBe("hello");
  });

  it("accepts whitespace before the colon and rejects invalid header lines", () => {
    const msg = parseMessage(wire([...OK_RESPONSE.slice(0, -1), "Subject  :  spaced  ", "Content-Length: 0"]));
    expect(header(msg, "Subject")).toBe("spaced");
    for (const line of ["No colon here", ": empty name", "Bad Name: x", "Bad(name): x", " leading: space"]) {
      expect(parseError(wire([OK_RESPONSE[0]!, line, ...OK_RESPONSE.slice(1)])).status, line).toBe(400);
    }
  });

  it("unfolds continuation lines into one space", () => {
    const msg = parseMessage(
      wire([
        "OPTIONS sip:a@example.com SIP/2.0",
        "Via: SIP/2.0/UDP",
        "   h.example.com;branch=z9hG4bK1",
        "Max-Forwards: 70",
        "To:",
        "\t<sip:a@example.com>",
        "From: <sip:b@example.com>",
        " ;tag=1",
        "Call-ID: abc@h",
        "CSeq: 1",
        "  OPTIONS",
        "Subject: one",
        " two  ",
        "\t three",
      ]),
    );
    expect(header(msg, "Via")).toBe("SIP/2.0/UDP h.example.com;branch=z9hG4bK1");
    expect(header(msg, "To")).toBe("<sip:a@example.com>");
    expect(header(msg, "From")).toBe("<sip:b@example.com> ;tag=1");
    expect(header(msg, "CSeq")).toBe("1 OPTIONS");
    expect(header(msg, "Subject")).toBe("one two three");
  });

  it("splits list headers on commas outside quotes and angle brackets only", () => {
    const msg = parseMessage(
      wire(
        invite([
          'Contact: "Smith, John" <sip:j@h1.example.com;x=a,b>;q=0.5, <sip:j@h2.example.com>',
          "Allow: INVITE, ACK,CANCEL , BYE",
          "Supported: timer, 100rel",
          "Route: <sip:p1.example.com;lr>, <sip:p2.example.com;lr>",
          "Record-Route: <sip:p3.example.com;lr>",
          'WWW-Authenticate: Digest realm="a, b", nonce="n", qop="auth,auth-int"',
          'Authorization: Digest username="u", realm="r"',
          "Date: Sat, 13 Nov 2010 23:29:00 GMT",
          "X-Unknown: a, b, c",
          'Warning: 399 h.example.com "a, b", 399 other "c"',
        ]),
        SDP,
      ),
    );
    expect(headers(msg, "Contact")).toEqual([
      "<sip:+16045550100@203.0.113.5:5060>",
      '"Smith, John" <sip:j@h1.example.com;x=a,b>;q=0.5',
      "<sip:j@h2.example.com>",
    ]);
    expect(headers(msg, "Allow")).toEqual(["INVITE", "ACK", "CANCEL", "BYE"]);
    expect(headers(msg, "k")).toEqual(["timer", "100rel"]);
    expect(headers(msg, "Route")).toEqual(["<sip:p1.example.com;lr>", "<sip:p2.example.com;lr>"]);
    expect(headers(msg, "WWW-Authenticate")).toEqual(['Digest realm="a, b", nonce="n", qop="auth,auth-int"']);
    expect(headers(msg, "Authorization")).toEqual(['Digest username="u", realm="r"']);
    expect(headers(msg, "Date")).toEqual(["Sat, 13 Nov 2010 23:29:00 GMT"]);
    expect(headers(msg, "X-Unknown")).toEqual(["a, b, c"]);
    expect(headers(msg, "Warning")).toEqual(['399 h.example.com "a, b"', '399 other "c"']);
  });

  it("splits Via lists and checks every Via", () => {
    const lines = invite().map((line) =>
      line.startsWith("Via") ? "Via: SIP/2.0/UDP p1.example.com;branch=z9hG4bKa, SIP/2.0/TCP [2001:db8::9]:5061;branch=z9hG4bKb" : line,
    );
    const msg = parseMessage(wire(lines, SDP));
    expect(headers(msg, "Via").map((via) => parseVia(via).host)).toEqual(["p1.example.com", "[2001:db8::9]"]);
    const broken = invite().map((line) => (line.startsWith("Via") ? "Via: SIP/2.0/UDP p1.example.com;branch=a, ;" : line));
    expect(parseError(wire(broken, SDP)).message).toMatch(/^Via: /);
  });

  it("checks To, From and Contact syntax", () => {
    const swap = (prefix: string, value: string) => invite().map((line) => (line.startsWith(prefix) ? `${prefix}: ${value}` : line));
    expect(parseError(wire(swap("To", '"unterminated <sip:a@b.example.com>'), SDP)).message).toMatch(/^To: unterminated quoted string/);
    expect(parseError(wire(swap("From", "Bell, Alexander <sip:a@b.example.com>;tag=1"), SDP)).status).toBe(400);
    expect(parseError(wire(swap("Contact", "sip:a@b.example.com?Route=x"), SDP)).status).toBe(400);
    expect(parseError(wire(swap("Contact", "< sip:a@b.example.com >"), SDP)).status).toBe(400);
    expect(parseMessage(wire(swap("Contact", "*"), SDP)).kind).toBe("request");
  });
});

describe("parseMessage: body and Content-Length", () => {
  it("takes the rest of a datagram when Content-Length is missing", () => {
    const msg = parseMessage(wire(invite([], SDP, null), SDP));
    expect(dec.decode(msg.body)).toBe(SDP);
    expect(header(msg, "Content-Length")).toBeNull();
  });

  it("truncates extra octets to Content-Length (RFC 3261 §18.3)", () => {
    const msg = parseMessage(wire(invite([], SDP, 10), SDP));
    expect(dec.decode(msg.body)).toBe(SDP.slice(0, 10));
  });

  it("rejects a Content-Length beyond the datagram with 400 and the partial message", () => {
    const error = parseError(wire(invite([], SDP, SDP.length + 1), SDP));
    expect(error.status).toBe(400);
    expect(error.message).toMatch(/exceeds/);
    expect((error as SipMessageError).partial.kind).toBe("request");
  });

  it("rejects negative, non-numeric and conflicting Content-Length values", () => {
    for (const value of ["-1", "abc", "1 2", "", "99999999999999999999"]) {
      const lines = invite([], SDP, null).concat(`Content-Length: ${value}`);
      expect(parseError(wire(lines, SDP)).status, value).toBe(400);
    }
    expect(parseError(wire(invite(["l: 3"], SDP), SDP)).message).toBe("conflicting Content-Length values");
    const same = parseMessage(wire(invite([`l: ${SDP.length}`], SDP), SDP));
    expect(headers(same, "Content-Length")).toEqual([String(SDP.length), String(SDP.length)]);
  });

  it("normalises the Content-Length value and keeps binary bodies intact", () => {
    const body = new Uint8Array([0, 13, 10, 13, 10, 255, 128, 1]);
    const head = enc.encode(`${invite([], "", null).join("\r\n")}\r\nContent-Length: 0008\r\n\r\n`);
    const bytes = new Uint8Array(head.length + body.length);
    bytes.set(head);
    bytes.set(body, head.length);
    const msg = parseMessage(bytes);
    expect(header(msg, "Content-Length")).toBe("8");
    expect([...msg.body]).toEqual([...body]);
  });

  it("copies the body out of the datagram", () => {
    const bytes = wire(invite(), SDP);
    const msg = parseMessage(bytes);
    bytes.fill(0);
    expect(dec.decode(msg.body)).toBe(SDP);
  });
});

describe("parseMessage: limits", () => {
  it("answers 513 for a message over maxMessageBytes", () => {
    const bytes = wire(invite(), SDP);
    expect(parseError(bytes, { ...DEFAULT_LIMITS, maxMessageBytes: bytes.length - 1 }).status).toBe(513);
    expect(parseMessage(bytes, { ...DEFAULT_LIMITS, maxMessageBytes: bytes.length }).kind).toBe("request");
  });

  it("answers 400 for too many header fields, counting list elements", () => {
    const many = invite(Array.from({ length: 200 }, (_, i) => `X-H${i}: ${i}`));
    expect(parseError(wire(many, SDP)).message).toMatch(/more than 128 header fields/);
    const list = invite([`Supported: ${Array.from({ length: 130 }, (_, i) => `t${i}`).join(",")}`]);
    expect(parseError(wire(list, SDP)).status).toBe(400);
    expect(parseMessage(wire(invite(["X-A: 1"]), SDP), { ...DEFAULT_LIMITS, maxHeaders: 10 }).kind).toBe("request");
    expect(parseError(wire(invite(["X-A: 1"]), SDP), { ...DEFAULT_LIMITS, maxHeaders: 9 }).status).toBe(400);
  });

  it("answers 400 for a header line over maxHeaderLineBytes, folded or not", () => {
    const limits = { ...DEFAULT_LIMITS, maxHeaderLineBytes: 100 };
    const at = (n: number) => `X-Long: ${"a".repeat(n - 8)}`;
    expect(parseMessage(wire(invite([at(100)]), SDP), limits).kind).toBe("request");
    expect(parseError(wire(invite([at(101)]), SDP), limits).message).toMatch(/longer than 100 bytes/);
    const folded = invite(["X-Long: start", ...Array.from({ length: 10 }, () => ` ${"b".repeat(20)}`)]);
    expect(parseError(wire(folded, SDP), limits).status).toBe(400);
    const startLine = [`INVITE sip:${"u".repeat(120)}@example.com SIP/2.0`, ...invite().slice(1)];
    expect(parseError(wire(startLine, SDP), limits).message).toBe("start line too long");
  });
});

describe("parseVia", () => {
  it("reads sent-protocol, sent-by and the parameters", () => {
    expect(parseVia("SIP/2.0/UDP 203.0.113.5:5060;branch=z9hG4bK776;rport;received=198.51.100.7")).toEqual({
      transport: "UDP",
      host: "203.0.113.5",
      port: 5060,
      branch: "z9hG4bK776",
      received: "198.51.100.7",
      rport: "",
      params: { branch: "z9hG4bK776", rport: null, received: "198.51.100.7" },
    });
    expect(parseVia("SIP/2.0/tls proxy.example.com;rport=5062;BRANCH=z9hG4bKx;maddr=224.2.0.1;ttl=16")).toMatchObject({
      transport: "TLS",
      host: "proxy.example.com",
      port: null,
      branch: "z9hG4bKx",
      received: null,
      rport: 5062,
      params: { maddr: "224.2.0.1", ttl: "16" },
    });
  });

  it("allows LWS around slashes, colon, semicolons and equals", () => {
    expect(parseVia("SIP  /   2.0 /UDP 192.0.2.2 : 5070 ;  branch =  z9hG4bK9 ; rport")).toMatchObject({
      transport: "UDP",
      host: "192.0.2.2",
      port: 5070,
      branch: "z9hG4bK9",
      rport: "",
    });
  });

  it("reads IPv6 sent-by and received", () => {
    expect(parseVia("SIP/2.0/TCP [2001:db8::1]:5061;branch=z9hG4bK1;received=2001:db8::2")).toMatchObject({
      host: "[2001:db8::1]",
      port: 5061,
      received: "2001:db8::2",
    });
  });

  it("rejects malformed values", () => {
    for (const value of [
      "",
      "SIP/2.0/UDP",
      "SIP/2.0/UDP ",
      "SIP/2.0 192.0.2.1",
      "SIP/3.0/UDP 192.0.2.1",
      "HTTP/2.0/UDP 192.0.2.1",
      "SIP/2.0/UDP192.0.2.1",
      "SIP/2.0/UDP 192.0.2.1:99999",
      "SIP/2.0/UDP 192.0.2.1:",
      "SIP/2.0/UDP [2001:db8::zz]",
      "SIP/2.0/UDP [2001:db8::1",
      "SIP/2.0/UDP 192.0.2.1;;",
      "SIP/2.0/UDP 192.0.2.1;branch",
      "SIP/2.0/UDP 192.0.2.1;branch=",
      "SIP/2.0/UDP 192.0.2.1;rport=x",
      "SIP/2.0/UDP 192.0.2.1 extra",
      "SIP/2.0/UDP 192.0.2.1, SIP/2.0/UDP 192.0.2.2",
    ]) {
      expect(() => parseVia(value), value).toThrow(SipParseError);
    }
  });
});

describe("parseNameAddr", () => {
  it("reads quoted display names with escapes", () => {
    expect(parseNameAddr('"J Rosenberg \\\\\\"" <sip:jdrosen@example.com>;tag=98asjd8')).toEqual({
      displayName: 'J Rosenberg \\"',
      uri: "sip:jdrosen@example.com",
      tag: "98asjd8",
      params: { tag: "98asjd8" },
    });
    expect(parseNameAddr('"" <sip:a@example.com>').displayName).toBe("");
    expect(parseNameAddr('"Zoë, \\"Z\\"" <sip:z@example.com>').displayName).toBe('Zoë, "Z"');
  });

  it("reads token display names, bare name-addr and addr-spec forms", () => {
    expect(parseNameAddr("Alice  Smith <sip:alice@example.com>")).toMatchObject({ displayName: "Alice  Smith", tag: null });
    expect(parseNameAddr("caller<sip:caller@example.com>;tag=323")).toMatchObject({ displayName: "caller", tag: "323" });
    expect(parseNameAddr("<sip:a@example.com;transport=tcp>;expires=60")).toEqual({
      displayName: null,
      uri: "sip:a@example.com;transport=tcp",
      tag: null,
      params: { expires: "60" },
    });
    // In the addr-spec form the parameters belong to the header, not the URI.
    expect(parseNameAddr("sip:a@example.com;tag=x ; Q = 0.7 ; flag")).toEqual({
      displayName: null,
      uri: "sip:a@example.com",
      tag: "x",
      params: { tag: "x", q: "0.7", flag: null },
    });
    expect(parseNameAddr('<sips:b@example.com>;+sip.instance="<urn:uuid:1>"').params).toEqual({ "+sip.instance": '"<urn:uuid:1>"' });
    expect(parseNameAddr("tel:+14155550123;tag=t").uri).toBe("tel:+14155550123");
    expect(parseNameAddr("<http://www.example.com>").uri).toBe("http://www.example.com");
  });

  it("keeps commas and question marks inside angle brackets", () => {
    expect(parseNameAddr("<sip:a@example.com?Route=%3Csip:p.example.com%3E>").uri).toBe("sip:a@example.com?Route=%3Csip:p.example.com%3E");
  });

  it("does not let parameter names reach the prototype", () => {
    const parsed = parseNameAddr("<sip:a@example.com>;__proto__=x;constructor=y");
    expect(Object.getPrototypeOf(parsed.params)).toBe(Object.prototype);
    expect(parsed.params.__proto__).toBe("x");
    expect(parsed.params.constructor).toBe("y");
  });

  it("rejects malformed values", () => {
    for (const value of [
      "",
      '"unterminated <sip:a@example.com>',
      '"Bad" sip:a@example.com',
      "<sip:a@example.com",
      "< sip:a@example.com>",
      "<sip:a@exa mple.com>",
      "Bell, Alexander <sip:a@example.com>",
      "sip:a@example.com?Route=x",
      "sip:a@example.com,sip:b@example.com",
      "<sip:a@example.com>;;",
      "<sip:a@example.com>;tag",
      "<sip:a@example.com>;tag=",
      "<sip:a@example.com> junk",
      "<notauri>",
      '"ctl \u0001" <sip:a@example.com>',
    ]) {
      expect(() => parseNameAddr(value), value).toThrow(SipParseError);
    }
  });
});

describe("parseCSeq", () => {
  it("reads the number and method", () => {
    expect(parseCSeq("314159 INVITE")).toEqual({ seq: 314159, method: "INVITE" });
    expect(parseCSeq("  0009 \t INVITE ")).toEqual({ seq: 9, method: "INVITE" });
    expect(parseCSeq("4294967295 BYE")).toEqual({ seq: 4294967295, method: "BYE" });
  });

  it("rejects malformed and out-of-range values", () => {
    for (const value of [
      "",
      "INVITE",
      "1",
      "1INVITE",
      "-1 INVITE",
      "4294967296 INVITE",
      "36893488147419103232 REGISTER",
      "1 INVITE x",
      "1 INV(ITE",
    ]) {
      expect(() => parseCSeq(value), value).toThrow(SipParseError);
    }
  });
});

describe("parseUri", () => {
  it("reads every part of a SIP URI, percent-decoded", () => {
    expect(parseUri("sips:al%69ce:se%63ret@Example.COM:5061;transport=TLS;LR;n%61me=v%61lue?Subject=hi%20there&Priority=urgent")).toEqual({
      scheme: "sips",
      user: "alice",
      password: "secret",
      host: "Example.COM",
      port: 5061,
      params: { transport: "TLS", lr: null, name: "value" },
      headers: { Subject: "hi there", Priority: "urgent" },
    });
    expect(parseUri("sip:example.com")).toEqual({
      scheme: "sip",
      user: null,
      password: null,
      host: "example.com",
      port: null,
      params: {},
      headers: {},
    });
  });

  it("reads IPv6 references and unusual users", () => {
    expect(parseUri("sip:[2001:db8::1]:5070;transport=tcp")).toMatchObject({ host: "[2001:db8::1]", port: 5070 });
    expect(parseUri("sip:alice@[::ffff:192.0.2.1]")).toMatchObject({ user: "alice", host: "[::ffff:192.0.2.1]", port: null });
    expect(parseUri("sip:user;par=u%40example.net@example.com")).toMatchObject({ user: "user;par=u@example.net", host: "example.com" });
    expect(parseUri("sip:null-%00-null@example.com").user).toBe("null-\u0000-null");
    expect(parseUri("sip:+1-415-555-0123@gw.example.net;user=phone")).toMatchObject({ user: "+1-415-555-0123", params: { user: "phone" } });
  });

  it("reads tel URIs", () => {
    expect(parseUri("tel:+1-201-555-0123;phone-context=example.com")).toEqual({
      scheme: "tel",
      user: "+1-201-555-0123",
      password: null,
      host: "",
      port: null,
      params: { "phone-context": "example.com" },
      headers: {},
    });
  });

  it("answers 416 for other schemes and 400 for malformed URIs", () => {
    expect(() => parseUri("http://example.com")).toThrow(expect.objectContaining({ status: 416 }));
    expect(() => parseUri("nobodyKnowsThisScheme:totallyopaquecontent")).toThrow(expect.objectContaining({ status: 416 }));
    for (const uri of [
      "",
      "sip",
      "sip:",
      "<sip:a@example.com>",
      "sip:@example.com",
      "sip:a@",
      "sip:a@exa mple.com",
      "sip:a@example.com:70000",
      "sip:a@example.com:",
      "sip:[2001:db8::1",
      "sip:[not-v6]",
      "sip:a%zz@example.com",
      "sip:a@example.com;",
      "sip:a@example.com;p=",
      "sip:a@example.com?",
      "sip:a@example.com?h",
      "sip:a@example.com>",
      "tel:",
      "tel:abc@x",
    ]) {
      expect(() => parseUri(uri), uri).toThrow(expect.objectContaining({ status: 400 }));
    }
  });
});

describe("serializeMessage", () => {
  it("writes CRLF lines, canonical names and a computed Content-Length", () => {
    const msg: SipMessage = {
      kind: "request",
      method: "BYE",
      uri: "sip:bob@example.net",
      version: "SIP/2.0",
      headers: [
        ["v", "SIP/2.0/UDP h.example.com;branch=z9hG4bK1"],
        ["max-forwards", "70"],
        ["To", "<sip:bob@example.net>;tag=2"],
        ["f", "<sip:alice@example.com>;tag=1"],
        ["call-id", "x@h"],
        ["cseq", "2 BYE"],
        ["Content-Length", "999"],
        ["X-Extension", "kept"],
      ],
      body: enc.encode("hi"),
    };
    expect(dec.decode(serializeMessage(msg))).toBe(
      [
        "BYE sip:bob@example.net SIP/2.0",
        "Via: SIP/2.0/UDP h.example.com;branch=z9hG4bK1",
        "Max-Forwards: 70",
        "To: <sip:bob@example.net>;tag=2",
        "From: <sip:alice@example.com>;tag=1",
        "Call-ID: x@h",
        "CSeq: 2 BYE",
        "Content-Length: 2",
        "X-Extension: kept",
        "",
        "hi",
      ].join("\r\n"),
    );
  });

  it("adds Content-Length when missing and writes one per message", () => {
    const msg = parseMessage(wire(OK_RESPONSE));
    const out = dec.decode(serializeMessage({ ...msg, headers: [...msg.headers, ["Content-Length", "7"]], body: enc.encode("abc") }));
    expect(out.match(/Content-Length/g)).toHaveLength(1);
    expect(out).toContain("Content-Length: 3\r\n\r\nabc");
    const none = dec.decode(serializeMessage({ ...msg, headers: msg.headers.filter(([n]) => n !== "Content-Length") }));
    expect(none.endsWith("Content-Length: 0\r\n\r\n")).toBe(true);
  });

  it("refuses values that would break the framing", () => {
    const msg = parseMessage(wire(OK_RESPONSE)) as SipResponse;
    expect(() => serializeMessage({ ...msg, headers: [["Subject", "a\r\nInjected: 1"]] })).toThrow(/CR or LF/);
    expect(() => serializeMessage({ ...msg, headers: [["Bad Name", "x"]] })).toThrow(/invalid header name/);
    expect(() => serializeMessage({ ...msg, reason: "OK\r\n" })).toThrow();
    expect(() => serializeMessage({ ...msg, status: 42 })).toThrow();
    const req = parseMessage(wire(invite(), SDP)) as SipRequest;
    expect(() => serializeMessage({ ...req, uri: "sip:a b" })).toThrow();
    expect(() => serializeMessage({ ...req, method: "IN VITE" })).toThrow();
  });

  it("round-trips: parse(serialize(m)) equals m", () => {
    const samples: SipMessage[] = [
      parseMessage(wire(invite(["Allow: INVITE, ACK", 'Contact: "A, B" <sip:x@[2001:db8::1]:5070>;q=0.1'], SDP), SDP)),
      parseMessage(wire(OK_RESPONSE)),
      parseMessage(wire(["SIP/2.0 100 ", ...OK_RESPONSE.slice(1)])),
      parseMessage(wire(["SIP/2.0 603 Décliné", ...OK_RESPONSE.slice(1)])),
      {
        kind: "request",
        method: "MESSAGE",
        uri: "sip:bob@example.net",
        version: "SIP/2.0",
        headers: [
          ["Via", "SIP/2.0/TCP h.example.com;branch=z9hG4bK2"],
          ["Max-Forwards", "70"],
          ["To", "<sip:bob@example.net>"],
          ["From", "<sip:alice@example.com>;tag=9"],
          ["Call-ID", "m@h"],
          ["CSeq", "1 MESSAGE"],
          ["Content-Type", "application/octet-stream"],
          ["Content-Length", "4"],
        ],
        body: new Uint8Array([0, 13, 10, 255]),
      },
    ];
    for (const msg of samples) {
      expect(parseMessage(serializeMessage(msg))).toEqual(msg);
    }
  });
});

describe("header helpers", () => {
  const base = (): SipMessage => parseMessage(wire(invite(["Record-Route: <sip:p1.example.com;lr>", "X-Thing: 1", "x-thing: 2"]), SDP));

  it("canonicalises names", () => {
    expect(canonicalName("v")).toBe("Via");
    expect(canonicalName("I")).toBe("Call-ID");
    expect(canonicalName("cseq")).toBe("CSeq");
    expect(canonicalName("www-authenticate")).toBe("WWW-Authenticate");
    expect(canonicalName("RSEQ")).toBe("RSeq");
    expect(canonicalName("X-Custom")).toBe("X-Custom");
  });

  it("reads first and all values, names in any case or compact form", () => {
    const msg = base();
    expect(header(msg, "call-id")).toBe("a84b4c76e66710@203.0.113.5");
    expect(header(msg, "i")).toBe("a84b4c76e66710@203.0.113.5");
    expect(header(msg.headers, "CSEQ")).toBe("314159 INVITE");
    expect(header(msg, "Route")).toBeNull();
    expect(headers(msg, "X-THING")).toEqual(["1", "2"]);
    expect(headers(msg, "Route")).toEqual([]);
  });

  it("sets, removes and prepends", () => {
    const msg = base();
    setHeader(msg.headers, "x-thing", "3");
    expect(headers(msg, "X-Thing")).toEqual(["3"]);
    setHeader(msg.headers, "s", "new");
    expect(msg.headers.at(-1)).toEqual(["Subject", "new"]);
    setHeader(msg.headers, "m", "<sip:z@example.com>");
    expect(headers(msg, "Contact")).toEqual(["<sip:z@example.com>"]);
    expect(removeHeader(msg.headers, "X-THING")).toBe(1);
    expect(removeHeader(msg.headers, "X-Thing")).toBe(0);

    addHeaderFirst(msg.headers, "v", "SIP/2.0/UDP me.example.com;branch=z9hG4bKme");
    expect(msg.headers[0]).toEqual(["Via", "SIP/2.0/UDP me.example.com;branch=z9hG4bKme"]);
    expect(headers(msg, "Via")).toHaveLength(2);
    addHeaderFirst(msg.headers, "Record-Route", "<sip:me.example.com;lr>");
    const rr = msg.headers.findIndex(([name]) => name === "Record-Route");
    expect(msg.headers.slice(rr, rr + 2)).toEqual([
      ["Record-Route", "<sip:me.example.com;lr>"],
      ["Record-Route", "<sip:p1.example.com;lr>"],
    ]);
    addHeaderFirst(msg.headers, "Route", "<sip:next.example.com;lr>");
    expect(msg.headers[0]).toEqual(["Route", "<sip:next.example.com;lr>"]);
    addHeader(msg.headers, "k", "timer");
    expect(msg.headers.at(-1)).toEqual(["Supported", "timer"]);
  });
});

describe("StreamFramer", () => {
  const one = wire(invite(), SDP);
  const two = wire(OK_RESPONSE);
  const concat = (...parts: Uint8Array[]) => {
    const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
    let at = 0;
    for (const part of parts) {
      out.set(part, at);
      at += part.length;
    }
    return out;
  };

  it("reassembles a message pushed one byte at a time", () => {
    const framer = new StreamFramer();
    const out: SipMessage[] = [];
    for (let i = 0; i < one.length; i++) {
      out.push(...framer.push(one.subarray(i, i + 1)));
      if (i < one.length - 1) expect(out).toHaveLength(0);
    }
    expect(out).toHaveLength(1);
    expect(out[0]).toEqual(parseMessage(one));
    expect(framer.buffered).toBe(0);
  });

  it("returns several pipelined messages from one chunk, and splits at any point", () => {
    const stream = concat(one, two, one);
    expect(new StreamFramer().push(stream).map((m) => m.kind)).toEqual(["request", "response", "request"]);
    for (let cut = 1; cut < stream.length; cut += 37) {
      const framer = new StreamFramer();
      const out = [...framer.push(stream.subarray(0, cut)), ...framer.push(stream.subarray(cut))];
      expect(
        out.map((m) => m.kind),
        `cut at ${cut}`,
      ).toEqual(["request", "response", "request"]);
      expect(dec.decode(out[2]!.body)).toBe(SDP);
    }
  });

  it("does not let a body that looks like headers confuse the framing", () => {
    const body = "\r\n\r\nINVITE sip:x SIP/2.0\r\n\r\n";
    const msg = wire(invite([], body), body);
    const out = new StreamFramer().push(concat(msg, two));
    expect(out.map((m) => m.kind)).toEqual(["request", "response"]);
    expect(dec.decode(out[0]!.body)).toBe(body);
  });

  it("skips CRLF keep-alives and reports each double-CRLF ping", () => {
    let pings = 0;
    const framer = new StreamFramer(DEFAULT_LIMITS, { onPing: () => pings++ });
    expect(framer.push(enc.encode("\r\n\r\n"))).toEqual([]);
    expect(pings).toBe(1);
    expect(framer.push(enc.encode("\r\n"))).toEqual([]);
    expect(framer.push(enc.encode("\r"))).toEqual([]);
    expect(pings).toBe(1);
    expect(framer.push(concat(enc.encode("\n"), two, enc.encode("\r\n\r\n"), one)).map((m) => m.kind)).toEqual(["response", "request"]);
    expect(pings).toBe(3);
    expect(framer.buffered).toBe(0);
  });

  it("closes the stream when Content-Length is missing", () => {
    const framer = new StreamFramer();
    const noLength = wire(OK_RESPONSE.slice(0, -1));
    expect(() => framer.push(noLength)).toThrow(/missing Content-Length/);
    // Once broken, the framer stays broken.
    expect(() => framer.push(two)).toThrow(SipParseError);
  });

  it("closes the stream on a Content-Length beyond the limit", () => {
    const limits = { ...DEFAULT_LIMITS, maxMessageBytes: 1000 };
    const framer = new StreamFramer(limits);
    const error = (() => {
      try {
        framer.push(wire([...OK_RESPONSE.slice(0, -1), "Content-Length: 5000"]));
      } catch (e) {
        return e as SipParseError;
      }
    })();
    expect(error?.status).toBe(513);
  });

  it("closes the stream on an endless header section, holding at most the limit plus one chunk", () => {
    const limits = { ...DEFAULT_LIMITS, maxMessageBytes: 4096 };
    const framer = new StreamFramer(limits);
    const chunk = enc.encode("X-Endless: aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa\r\n");
    framer.push(enc.encode("OPTIONS sip:a@example.com SIP/2.0\r\n"));
    let thrown: unknown = null;
    for (let i = 0; i < 1000 && thrown === null; i++) {
      try {
        framer.push(chunk);
        expect(framer.buffered).toBeLessThanOrEqual(limits.maxMessageBytes);
      } catch (error) {
        thrown = error;
      }
    }
    expect(thrown).toBeInstanceOf(SipParseError);
    expect((thrown as SipParseError).status).toBe(513);
  });

  it("closes the stream on a header section that is not SIP", () => {
    expect(() => new StreamFramer().push(enc.encode("GET / HTTP/1.1\r\nHost: x\r\n\r\n"))).toThrow(SipParseError);
    expect(() => new StreamFramer().push(enc.encode("\u0016\u0003\u0001 binary\r\n\r\n"))).toThrow(SipParseError);
  });

  it("hands framed but invalid messages to onInvalid and goes on", () => {
    const invalid: SipMessageError[] = [];
    const framer = new StreamFramer(DEFAULT_LIMITS, { onInvalid: (error) => invalid.push(error) });
    const bad = wire(
      invite().filter((line) => !line.startsWith("Max-Forwards")),
      SDP,
    );
    expect(framer.push(concat(one, bad, two)).map((m) => m.kind)).toEqual(["request", "response"]);
    expect(invalid).toHaveLength(1);
    expect(invalid[0]!.status).toBe(400);
    expect(invalid[0]!.message).toBe("missing mandatory header: Max-Forwards");
    expect(header(invalid[0]!.partial, "Call-ID")).toBe("a84b4c76e66710@203.0.113.5");
    // Without onInvalid the error closes the stream.
    expect(() => new StreamFramer().push(bad)).toThrow(SipMessageError);
  });

  it("copies bodies out of the stream buffer", () => {
    const framer = new StreamFramer();
    const [first] = framer.push(one.subarray(0, one.length - 1)).concat(framer.push(one.subarray(one.length - 1)));
    framer.push(concat(one.subarray(0, 50)));
    framer.push(one.subarray(50));
    expect(dec.decode(first!.body)).toBe(SDP);
  });
});
