// The SIP over WebSocket transport on its own (RFC 7118): one WebSocket message is one SIP
// message (no Content-Length needed), what cannot be parsed is reported, connections are capped
// per source, a browser that stops answering pings is dropped, and sending to a browser that is
// not connected fails at once (the transaction above learns it without waiting for Timer B/F).
// WSS serves the configured certificate; plain WS is allowed by the configuration on loopback only.
import { readFileSync } from "node:fs";
import { afterEach, describe, expect, it } from "vitest";
import { loadSipNodeConfig } from "../../sip-node/config.ts";
import WebSocket from "ws";
import type { SipMessage, SipParseError } from "../../sip-node/sip/message.ts";
import type { Endpoint } from "../../sip-node/sip/transport.ts";
import { WsTransport } from "../../sip-node/webrtc/ws-transport.ts";
import { selfSignedCertificate } from "./certificates.ts";

let transport: WsTransport | null = null;
const clients: WebSocket[] = [];

afterEach(async () => {
  for (const client of clients.splice(0)) client.terminate();
  await transport?.close();
  transport = null;
});

async function listen(limits = { maxConnections: 10, maxPerSource: 2, pingMs: 60_000 }) {
  transport = await WsTransport.listen({ bind: "127.0.0.1", port: 0, publicAddress: "127.0.0.1", limits });
  const messages: Array<{ message: SipMessage; from: Endpoint }> = [];
  const invalid: SipParseError[] = [];
  transport.onReceiveMessage(
    (message, from) => messages.push({ message, from }),
    (error) => invalid.push(error),
  );
  return { transport, messages, invalid };
}

function connect(port: number, options: WebSocket.ClientOptions = {}): Promise<WebSocket> {
  const client = new WebSocket(`ws://127.0.0.1:${port}`, ["sip"], options);
  clients.push(client);
  return new Promise((resolve, reject) => {
    client.once("open", () => resolve(client));
    client.once("unexpected-response", (_req, res) => reject(new Error(`refused ${res.statusCode}`)));
    client.once("error", reject);
  });
}

const until = async (check: () => boolean, ms = 2_000) => {
  const deadline = Date.now() + ms;
  while (!check() && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 10));
  return check();
};

const OPTIONS = [
  "OPTIONS sip:127.0.0.1 SIP/2.0",
  "Via: SIP/2.0/WS df7jal23ls0d.invalid;branch=z9hG4bK56sdasks",
  "Max-Forwards: 70",
  "From: <sip:alice@example.invalid>;tag=1",
  "To: <sip:127.0.0.1>",
  "Call-ID: ws-options-1",
  "CSeq: 1 OPTIONS",
  "",
  "",
].join("\r\n");

describe("SIP over WebSocket", () => {
  it("takes one SIP message per WebSocket message, without Content-Length, from the connection's endpoint; reports what does not parse", async () => {
    const { transport, messages, invalid } = await listen();
    const client = await connect(transport.local.port);
    client.send(OPTIONS);
    client.send("\r\n\r\n");
    client.send("this is not SIP\r\n\r\n");
    expect(await until(() => messages.length === 1 && invalid.length === 1)).toBe(true);
    expect(messages[0]!.message).toMatchObject({ kind: "request", method: "OPTIONS" });
    expect(messages[0]!.from).toMatchObject({ address: "127.0.0.1", protocol: "ws" });
    // The answer goes back over the same connection.
    const reply = new Promise<string>((resolve) => client.once("message", (data) => resolve(data.toString())));
    transport.send(new TextEncoder().encode("SIP/2.0 403 Forbidden\r\nContent-Length: 0\r\n\r\n"), messages[0]!.from);
    expect(await reply).toMatch(/^SIP\/2\.0 403 Forbidden/);
  });

  it("caps connections per source address", async () => {
    const { transport } = await listen();
    await connect(transport.local.port);
    await connect(transport.local.port);
    await expect(connect(transport.local.port)).rejects.toThrow("refused 503");
    expect(transport.connected).toBe(2);
  });

  it("drops a connection that stops answering pings", async () => {
    const { transport } = await listen({ maxConnections: 10, maxPerSource: 10, pingMs: 100 });
    const alive = await connect(transport.local.port);
    const dead = await connect(transport.local.port, { autoPong: false });
    const closed = new Promise<void>((resolve) => dead.once("close", () => resolve()));
    await closed;
    expect(alive.readyState).toBe(WebSocket.OPEN);
    expect(await until(() => transport.connected === 1)).toBe(true);
  });

  it("fails a send to a browser that is not connected at once", async () => {
    const { transport } = await listen();
    const failures: string[] = [];
    transport.onSendFailure((_to, reason) => failures.push(reason));
    transport.send(new TextEncoder().encode("BYE sip:x@y.invalid SIP/2.0\r\n\r\n"), { address: "127.0.0.1", port: 1, protocol: "ws" });
    expect(await until(() => failures.length === 1, 200)).toBe(true);
    expect(failures[0]).toContain("not connected");
  });

  it("serves WSS with the configured certificate, and its messages say wss", async () => {
    const { key, cert } = selfSignedCertificate("wss");
    const config = loadSipNodeConfig({
      NODE_TOKEN: "x".repeat(32),
      SIP_BIND: "127.0.0.1",
      SIP_WS_PORT: "0",
      SIP_WS_CERT_FILE: cert,
      SIP_WS_KEY_FILE: key,
    });
    transport = await WsTransport.listen({ bind: "127.0.0.1", publicAddress: "127.0.0.1", ...config.sip.ws! });
    expect(transport.protocol).toBe("wss");
    const received: Endpoint[] = [];
    transport.onReceiveMessage(
      (_message, from) => received.push(from),
      () => {},
    );
    const client = new WebSocket(`wss://127.0.0.1:${transport.local.port}`, ["sip"], { ca: readFileSync(cert, "utf8") });
    clients.push(client);
    await new Promise((resolve, reject) => client.once("open", resolve).once("error", reject));
    client.send(OPTIONS);
    expect(await until(() => received.length === 1)).toBe(true);
    expect(received[0]!.protocol).toBe("wss");
  });

  it("is plain WS only on loopback: the configuration refuses it elsewhere without a certificate", () => {
    const env = { NODE_TOKEN: "x".repeat(32), SIP_WS_PORT: "7443" };
    expect(loadSipNodeConfig({ ...env, SIP_BIND: "127.0.0.1" }).sip.ws).toEqual({ port: 7443 });
    expect(() => loadSipNodeConfig({ ...env, SIP_BIND: "0.0.0.0" })).toThrow(
      /SIP_WS_PORT: must come with SIP_WS_CERT_FILE and SIP_WS_KEY_FILE/,
    );
    expect(() => loadSipNodeConfig({ ...env, SIP_BIND: "127.0.0.1", SIP_WS_CERT_FILE: "/x.pem" })).toThrow(/go together/);
    expect(loadSipNodeConfig({ NODE_TOKEN: "x".repeat(32) }).sip.ws).toBeNull();
  });
});
