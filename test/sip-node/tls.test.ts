// A destination reached over SIP TLS (some voice-AI providers take nothing else). sipp here is
// built without TLS, so the destination is a small TLS UAS on Node's tls module, with a
// certificate made by openssl for this run and trusted through SIP_TLS_CA_FILE.
import { readFileSync } from "node:fs";
import { createServer, type Server } from "node:tls";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { StreamFramer } from "../../sip-node/sip/framer.ts";
import { header, setHeader } from "../../sip-node/sip/headers.ts";
import type { SipMessage, SipRequest } from "../../sip-node/sip/message.ts";
import { serializeMessage } from "../../sip-node/sip/serializer.ts";
import { responseTo } from "../../sip-node/sip/transactions.ts";
import { selfSignedCertificate } from "./certificates.ts";
import { endedCall, openAccount, startStack, uac, type Stack } from "./harness.ts";

const trusted = selfSignedCertificate("sip-tls-trusted");
const stranger = selfSignedCertificate("sip-tls-stranger");

let stack: Stack;
let server: Server;
let untrusted: Server;
let port: number;
let untrustedPort: number;
const seen: SipRequest[] = [];

beforeAll(async () => {
  stack = await startStack({ SIP_TLS_CA_FILE: trusted.cert });
  [server, port] = await tlsUas(trusted);
  [untrusted, untrustedPort] = await tlsUas(stranger);
}, 120_000);

async function tlsUas(identity: { key: string; cert: string }): Promise<[Server, number]> {
  const uas = createServer({ key: readFileSync(identity.key), cert: readFileSync(identity.cert) }, (socket) => {
    const framer = new StreamFramer();
    socket.on("data", (chunk: Buffer) => {
      for (const message of framer.push(chunk)) answer(message, (reply) => socket.write(serializeMessage(reply)));
    });
    socket.on("error", () => {});
  });
  await new Promise<void>((resolve) => uas.listen(0, "127.0.0.1", resolve));
  return [uas, (uas.address() as { port: number }).port];
}

afterAll(async () => {
  server?.close();
  untrusted?.close();
  await stack?.stop();
});

/** The UAS: answers an INVITE with 200 and G.711 SDP, a BYE with 200; notes every request. */
function answer(message: SipMessage, send: (reply: SipMessage) => void): void {
  if (message.kind !== "request") return;
  seen.push(message);
  if (message.method === "INVITE") {
    const ok = responseTo(message, 200, "OK", "tlsuas");
    setHeader(ok.headers, "Contact", `<sip:127.0.0.1:${port};transport=tls>`);
    setHeader(ok.headers, "Content-Type", "application/sdp");
    ok.body = new TextEncoder().encode(
      "v=0\r\no=- 1 1 IN IP4 127.0.0.1\r\ns=-\r\nc=IN IP4 127.0.0.1\r\nt=0 0\r\nm=audio 40000 RTP/AVP 0\r\n",
    );
    send(ok);
  } else if (message.method === "BYE") {
    send(responseTo(message, 200, "OK"));
  }
}

describe("SIP over TLS toward a destination", () => {
  it("carries a call to a TLS destination whose certificate the node trusts", async () => {
    const account = await openAccount(stack, port, { transport: "tls" });
    const caller = await uac(stack, account.src, "uac.xml");
    expect(caller.code, caller.output).toBe(0);
    const call = await endedCall(account);
    expect(seen.map((r) => r.method)).toEqual(["INVITE", "ACK", "BYE"]);
    expect(header(seen[0]!, "Via")).toMatch(/^SIP\/2\.0\/TLS /);
    expect(header(seen[0]!, "Contact")).toMatch(/;transport=tls>$/);
    expect(call).toMatchObject({ status: "completed", dest_transport: "tls", hangup_by: "caller" });
  });

  it("refuses a destination whose certificate it cannot trust: 503 at once, nothing sent in clear", async () => {
    const before = seen.length;
    const account = await openAccount(stack, untrustedPort, { transport: "tls" });
    const started = Date.now();
    const caller = await uac(stack, account.src, "uac-rejected.xml", "14155550123", { CODE: "503", ANI: "14155550100" });
    expect(caller.code, caller.output).toBe(0);
    expect(Date.now() - started).toBeLessThan(5_000);
    expect(seen.length).toBe(before);
    expect(await endedCall(account)).toMatchObject({ status: "failed", sip_code: 503, dest_transport: "tls" });
  });
});
