// SIP message serializer (RFC 3261 §7): CRLF line ends, canonical header names, one line per
// header entry, and a Content-Length always computed from the body (written where the message
// had one, else after the other headers). parseMessage(serializeMessage(m)) gives m back for
// any valid m whose Content-Length entry, if any, is the one the parser produces.
import { canonicalNameAt } from "./headers.ts";
import type { SipMessage } from "./message.ts";

/** Throws when text would break the message framing (header injection through CR/LF). */
function checkText(what: string, text: string): void {
  if (text.indexOf("\r") !== -1 || text.indexOf("\n") !== -1) throw new Error(`${what} contains CR or LF`);
}

const TOKEN = /^[A-Za-z0-9\-.!%*_+`'~]+$/;

export function serializeMessage(msg: SipMessage): Uint8Array {
  let head: string;
  if (msg.kind === "request") {
    if (!TOKEN.test(msg.method)) throw new Error(`invalid method ${JSON.stringify(msg.method)}`);
    if (msg.uri.length === 0 || /[\s]/.test(msg.uri)) throw new Error(`invalid Request-URI ${JSON.stringify(msg.uri)}`);
    head = `${msg.method} ${msg.uri} SIP/2.0\r\n`;
  } else {
    if (!Number.isInteger(msg.status) || msg.status < 100 || msg.status > 699) {
      throw new Error(`invalid status code ${msg.status}`);
    }
    checkText("reason phrase", msg.reason);
    head = `SIP/2.0 ${msg.status} ${msg.reason}\r\n`;
  }
  const body = msg.body;
  let wroteLength = false;
  const list = msg.headers;
  for (let i = 0; i < list.length; i++) {
    const [rawName, value] = list[i]!;
    const known = canonicalNameAt(rawName, 0, rawName.length);
    if (known === "Content-Length") {
      if (!wroteLength) head += `Content-Length: ${body.length}\r\n`;
      wroteLength = true;
      continue;
    }
    if (known === null && !TOKEN.test(rawName)) throw new Error(`invalid header name ${JSON.stringify(rawName)}`);
    const name = known ?? rawName;
    checkText(`header ${name}`, value);
    head += `${name}: ${value}\r\n`;
  }
  if (!wroteLength) head += `Content-Length: ${body.length}\r\n`;
  head += "\r\n";
  // Buffer.allocUnsafe: pooled and not zero-filled (every byte is written below), several
  // times cheaper than `new Uint8Array(n)` at these sizes; returned as a plain Uint8Array.
  const headLength = Buffer.byteLength(head, "utf8");
  const buffer = Buffer.allocUnsafe(headLength + body.length);
  buffer.write(head, 0, headLength, "utf8");
  buffer.set(body, headLength);
  return new Uint8Array(buffer.buffer, buffer.byteOffset, buffer.length);
}
