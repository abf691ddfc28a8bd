// The local phone `npm start` puts behind the platform's verification route (VERIFY_ROUTE): it
// stands for the phone network and the phone's holder, who is the developer here. It answers
// every INVITE (µ-law only), listens to the RTP, and when it has heard "your verification code
// is" and six digits prints the code, as the holder of the number would hear it; BYE ends the call.
// Loopback only; nothing of the account's can reach it (customers' destinations never lead here).
import { createSocket } from "node:dgram";
import { readFileSync } from "node:fs";
import { randomBytes } from "node:crypto";

const samples = new URL("../../sip-node/origination/samples/", import.meta.url);
const sample = (name) => new Uint8Array(readFileSync(new URL(`${name}.ulaw`, samples)));

/** The digits spoken after "your verification code is" in `audio` (µ-law bytes as sent), or null. */
export function spokenCode(audio, intro = sample("verification_code"), digits = [...Array(10).keys()].map((d) => sample(`digit-${d}`))) {
  const at = indexOf(audio, intro.subarray(0, Math.min(intro.length, 1600)));
  if (at < 0) return null;
  let cursor = at + intro.length;
  let code = "";
  while (code.length < 6) {
    const digit = digits.findIndex((d) => cursor + d.length <= audio.length && equalAt(audio, d, cursor));
    if (digit < 0) return null;
    code += String(digit);
    cursor += digits[digit].length;
  }
  return code;
}

function indexOf(haystack, needle) {
  outer: for (let i = 0; i + needle.length <= haystack.length; i++) {
    for (let j = 0; j < needle.length; j++) if (haystack[i + j] !== needle[j]) continue outer;
    return i;
  }
  return -1;
}

const equalAt = (haystack, needle, at) => needle.every((byte, j) => haystack[at + j] === byte);

/**
 * Starts the phone on 127.0.0.1 (an ephemeral port unless `port` is given); `log` gets what it
 * hears, `onInvite` each INVITE as it arrived (tests read its headers).
 */
export async function startLocalPhone({ port = 0, log = console.log, onInvite = () => {} } = {}) {
  const sip = createSocket("udp4");
  const calls = new Map();
  sip.on("message", (bytes, peer) => {
    const message = bytes.toString("latin1");
    const method = /^([A-Z]+) /.exec(message)?.[1];
    if (!method || method === "ACK") return;
    const callId = header(message, "Call-ID");
    const reply = (status, reason, extra = [], body = "") => {
      const headers = responseHeaders(message, calls.get(callId)?.tag);
      const text = [`SIP/2.0 ${status} ${reason}`, ...headers, ...extra, `Content-Length: ${Buffer.byteLength(body)}`, "", body].join(
        "\r\n",
      );
      sip.send(Buffer.from(text, "latin1"), peer.port, peer.address);
    };
    if (method === "INVITE") {
      onInvite(message);
      if (!calls.has(callId)) calls.set(callId, answer(message, log));
      const call = calls.get(callId);
      const contact = `Contact: <sip:phone@127.0.0.1:${sip.address().port}>`;
      void call.ready.then(() => reply(200, "OK", ["Content-Type: application/sdp", contact], call.sdp));
      return;
    }
    if (method === "BYE" || method === "CANCEL") {
      calls.get(callId)?.hangUp();
      calls.delete(callId);
    }
    reply(200, "OK");
  });
  await new Promise((resolve) => sip.bind(port, "127.0.0.1", resolve));
  return { port: sip.address().port, stop: () => new Promise((resolve) => sip.close(() => resolve())) };
}

/** A call answered: an RTP socket that gathers the µ-law it hears and looks for the code in it. */
function answer(invite, log) {
  const rtp = createSocket("udp4");
  const chunks = [];
  let told = false;
  const number = /^INVITE sip:([^@;>]+)/.exec(invite)?.[1] ?? "the number";
  const listen = () => {
    const code = told ? null : spokenCode(new Uint8Array(Buffer.concat(chunks)));
    if (!code) return;
    told = true;
    log(`[local phone] ${number} answered a verification call and heard the code ${code}`);
  };
  rtp.on("message", (packet) => {
    if (packet.length <= 12 || told) return;
    chunks.push(packet.subarray(12 + (packet[0] & 0x0f) * 4));
    // About every second of audio, look for the code in what was heard so far.
    if (chunks.length % 50 === 0) listen();
  });
  const ready = new Promise((resolve) => rtp.bind(0, "127.0.0.1", resolve));
  const call = {
    tag: randomBytes(6).toString("hex"),
    sdp: "",
    ready: ready.then(() => {
      const port = rtp.address().port;
      call.sdp = [
        "v=0",
        `o=phone 1 1 IN IP4 127.0.0.1`,
        "s=-",
        "c=IN IP4 127.0.0.1",
        "t=0 0",
        `m=audio ${port} RTP/AVP 0`,
        "a=rtpmap:0 PCMU/8000",
        "a=sendrecv",
        "",
      ].join("\r\n");
    }),
    hangUp: () => {
      listen();
      rtp.close();
    },
  };
  return call;
}

function header(message, name) {
  const line = message.split("\r\n").find((l) => l.toLowerCase().startsWith(`${name.toLowerCase()}:`));
  return line ? line.slice(name.length + 1).trim() : "";
}

/** Via, From, To (with our tag), Call-ID and CSeq of the request, as a response carries them. */
function responseHeaders(request, tag) {
  const lines = request.split("\r\n");
  const pick = (name) => lines.filter((l) => l.toLowerCase().startsWith(`${name.toLowerCase()}:`));
  const to = pick("To").map((l) => (tag && !/;tag=/i.test(l) ? `${l};tag=${tag}` : l));
  return [...pick("Via"), ...pick("From"), ...to, ...pick("Call-ID"), ...pick("CSeq")];
}
