// bench/sip parse figure: the SIP core's parse cost per INVITE, without sipp, wrangler or
// Kamailio. It parses the INVITE bench/sip's caller sends (uac-bench.xml, as sipp fills it in),
// and then that message plus the structured values the B2BUA reads of every new call (From,
// To and Contact as name-addr, the Request-URI, the top Via). Each figure is the median (and
// best) of BENCH_ROUNDS rounds of BENCH_PARSES parses, after a warm-up.
// BENCH_COMPARE=<another parser.ts> (a copy of an older version) measures both in this process,
// their rounds interleaved, so a machine busy with other work weighs on both alike.
// Run: npx node bench/sip/parse.ts   (Node 22 from node_modules: it runs TypeScript as is)
import { resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { header } from "../../sip-node/sip/headers.ts";
import * as current from "../../sip-node/sip/parser.ts";

type Parser = typeof current;

const PARSES = Number(process.env.BENCH_PARSES ?? 200_000);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 9);
const COMPARE = process.env.BENCH_COMPARE;

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

type Case = { label: string; run: (bytes: Uint8Array) => number };

function cases(parser: Parser): Case[] {
  const { parseMessage, parseNameAddr, parseUri, parseVia } = parser;
  /** What the node does with a new INVITE before it is a call: the message, then its values. */
  const parseCall = (bytes: Uint8Array): number => {
    const message = parseMessage(bytes);
    if (message.kind !== "request") throw new Error("not a request");
    const from = parseNameAddr(header(message, "From")!);
    const to = parseNameAddr(header(message, "To")!);
    const contact = parseNameAddr(header(message, "Contact")!);
    const uri = parseUri(message.uri);
    const via = parseVia(header(message, "Via")!);
    const values = (from.displayName?.length ?? 0) + to.uri.length + contact.uri.length + (uri.port ?? 0) + (via.port ?? 0);
    return message.headers.length + values;
  };
  return [
    { label: "message", run: (bytes) => parseMessage(bytes).headers.length },
    { label: "message + From/To/Contact/RURI/Via", run: parseCall },
  ];
}

let sink = 0;

/** Nanoseconds per call of one round of PARSES calls. */
function round(run: Case["run"]): number {
  const start = process.hrtime.bigint();
  for (let i = 0; i < PARSES; i++) sink += run(INVITE);
  return Number(process.hrtime.bigint() - start) / PARSES;
}

const parsers: Array<{ name: string; cases: Case[] }> = [{ name: "sip-node/sip/parser.ts", cases: cases(current) }];
if (COMPARE) {
  const other = (await import(pathToFileURL(resolve(COMPARE)).href)) as Parser;
  parsers.push({ name: COMPARE, cases: cases(other) });
}

const us = (ns: number) => (ns / 1000).toFixed(2);
console.log(`parse, ${INVITE.length}-byte INVITE, us per INVITE: median / best of ${ROUNDS} rounds of ${PARSES}`);
for (let c = 0; c < parsers[0]!.cases.length; c++) {
  const rounds = parsers.map(() => [] as number[]);
  for (const parser of parsers) round(parser.cases[c]!.run); // warm-up
  for (let r = 0; r < ROUNDS; r++) parsers.forEach((parser, i) => rounds[i]!.push(round(parser.cases[c]!.run)));
  parsers.forEach((parser, i) => {
    const sorted = rounds[i]!.sort((x, y) => x - y);
    const label = `${parser.cases[c]!.label}${COMPARE ? ` [${parser.name}]` : ""}`;
    console.log(`  ${label.padEnd(COMPARE ? 72 : 40)} ${us(sorted[Math.floor(sorted.length / 2)]!)} / ${us(sorted[0]!)}`);
  });
}
if (sink === 0) console.log("(nothing parsed)");
