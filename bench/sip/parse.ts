// bench/sip parse figure: the SIP core's parse cost per INVITE, without sipp, wrangler or
// Kamailio. It parses the INVITE bench/sip's caller sends (uac-bench.xml, as sipp fills it in),
// and then that message plus the structured values the B2BUA reads of every new call (From,
// To and Contact as name-addr, the Request-URI, the top Via). Each figure is the median of
// BENCH_ROUNDS rounds of BENCH_PARSES parses, after a warm-up; compare runs on one machine only.
// BENCH_PARSER names another parser.ts to measure (a copy of an older version), for before/after.
// Run: npx node bench/sip/parse.ts   (Node 22 from node_modules: it runs TypeScript as is)
import { resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { header } from "../../sip-node/sip/headers.ts";
import type * as Parser from "../../sip-node/sip/parser.ts";

const parserPath = process.env.BENCH_PARSER ? pathToFileURL(resolve(process.env.BENCH_PARSER)).href : "../../sip-node/sip/parser.ts";
const { parseMessage, parseNameAddr, parseUri, parseVia } = (await import(parserPath)) as typeof Parser;

const PARSES = Number(process.env.BENCH_PARSES ?? 200_000);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 9);

const SDP = [
  "v=0",
  "o=user1 53655765 2353687637 IN IP4 127.0.0.1",
  "s=-",
  "c=IN IP4 127.0.0.1",
  "t=0 0",
  "m=audio 6000 RTP/AVP 0",
  "a=rtpmap:0 PCMU/8000",
  "",
].join("\r\n");

const INVITE = Buffer.from(
  [
    "INVITE sip:14155550123@127.0.0.1:5060 SIP/2.0",
    "Via: SIP/2.0/UDP 127.0.0.1:40123;branch=z9hG4bK-31337-1-0",
    'From: "Bench" <sip:14155550100@127.0.0.1:40123>;tag=31337SIPpTag001',
    "To: <sip:14155550123@127.0.0.1:5060>",
    "Call-ID: 1-31337@127.0.0.1",
    "CSeq: 1 INVITE",
    "Contact: sip:14155550100@127.0.0.1:40123",
    "Max-Forwards: 70",
    "Content-Type: application/sdp",
    `Content-Length: ${SDP.length}`,
    "",
    SDP,
  ].join("\r\n"),
);

/** What the node does with a new INVITE before it is a call: the message, then its values. */
function parseCall(bytes: Uint8Array): number {
  const message = parseMessage(bytes);
  if (message.kind !== "request") throw new Error("not a request");
  const from = parseNameAddr(header(message, "From")!);
  const to = parseNameAddr(header(message, "To")!);
  const contact = parseNameAddr(header(message, "Contact")!);
  const uri = parseUri(message.uri);
  const via = parseVia(header(message, "Via")!);
  return message.headers.length + (from.tag?.length ?? 0) + to.uri.length + contact.uri.length + (uri.port ?? 0) + (via.port ?? 0);
}

/** Median and best nanoseconds per call of `fn` over ROUNDS rounds of PARSES calls. */
function measure(fn: (bytes: Uint8Array) => number): { ns: number; best: number; sink: number } {
  let sink = 0;
  for (let i = 0; i < PARSES; i++) sink += fn(INVITE);
  const rounds: number[] = [];
  for (let r = 0; r < ROUNDS; r++) {
    const start = process.hrtime.bigint();
    for (let i = 0; i < PARSES; i++) sink += fn(INVITE);
    rounds.push(Number(process.hrtime.bigint() - start) / PARSES);
  }
  rounds.sort((a, b) => a - b);
  return { ns: rounds[Math.floor(rounds.length / 2)]!, best: rounds[0]!, sink };
}

const message = measure((bytes) => parseMessage(bytes).headers.length);
const call = measure(parseCall);
const us = (ns: number) => (ns / 1000).toFixed(2);
console.log(`parse, ${INVITE.length}-byte INVITE, us per INVITE (median / best of ${ROUNDS} rounds of ${PARSES})${process.env.BENCH_PARSER ? ` [${process.env.BENCH_PARSER}]` : ""}:`);
console.log(`  message                                ${us(message.ns)} / ${us(message.best)}`);
console.log(`  message + From/To/Contact/RURI/Via     ${us(call.ns)} / ${us(call.best)}`);
if (message.sink + call.sink === 0) console.log("(nothing parsed)");
