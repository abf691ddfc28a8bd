// The web dialer's transport at the node, SIP over WebSocket (RFC 7118), against the Worker under
// `wrangler dev`: a handshake without the sip subprotocol is refused; a client with no token
// cannot INVITE and nothing else outside a dialog is taken; a token reused, expired or another
// account's is refused before any media port is taken; a good token places a call whose WebRTC
// media (a werift browser in Node) is bridged to a sipp destination, answered and hung up over the
// same socket (the destination's BYE too, to the browser's .invalid Contact), recorded with origin
// dialer and charged; a closed WebSocket ends its call at once.
import { randomBytes } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import WebSocket from "ws";
import { freeUdpPort, openAccount, pause, startStack, uas, until, type Stack, type TestAccount } from "./harness.ts";
import { workerClient } from "../../sip-node/control/worker-client.ts";
import { NodeBrowser } from "./webrtc-browser.ts";

let stack: Stack;
let account: TestAccount;
let other: TestAccount;
let uasPort: number;

beforeAll(async () => {
  stack = await startStack({ SIP_WS_PORT: "0" });
  uasPort = await freeUdpPort();
  account = await openAccount(stack, uasPort);
  other = await openAccount(stack, uasPort);
  await stack.sql(
    `UPDATE customers SET dialer_enabled = 1, pilot_ends_at = '2020-01-01T00:00:00.000Z' WHERE id IN ('${account.id}', '${other.id}')`,
  );
  // The ledger's copy of the account follows D1 on the next API write.
  await account.call(`/api/customer/destinations/${account.destination.id}`, { method: "PATCH", body: { label: "sipp uas" } });
});

afterAll(async () => {
  await stack?.stop();
});

const mint = async (who: TestAccount): Promise<string> => {
  const session = await who.call("/api/customer/dialer/session", { method: "POST", body: {} });
  if (!session?.token) throw new Error(`dialer session: ${JSON.stringify(session)}`);
  return session.token;
};

/** A browser's SIP over WebSocket connection, as a SIP library in a page holds one. */
class SipSocket {
  readonly socket: WebSocket;
  readonly received: string[] = [];
  private waiters: Array<() => void> = [];
  readonly host = `${randomBytes(4).toString("hex")}.invalid`;
  /** Our From tag in each call (Call-ID). */
  private readonly tags = new Map<string, string>();

  private constructor(socket: WebSocket) {
    this.socket = socket;
    socket.on("message", (data) => {
      this.received.push(data.toString());
      for (const wake of this.waiters.splice(0)) wake();
    });
  }

  static open(protocols: string[] = ["sip"]): Promise<SipSocket> {
    const socket = new WebSocket(`ws://127.0.0.1:${stack.node.ws!.local.port}`, protocols);
    return new Promise((resolve, reject) => {
      socket.once("open", () => resolve(new SipSocket(socket)));
      socket.once("unexpected-response", (_req, res) => reject(new Error(`handshake refused: ${res.statusCode}`)));
      socket.once("error", reject);
    });
  }

  request(
    method: string,
    options: { callId?: string; token?: string; sdp?: string; toTag?: string; cseq?: number; branch?: string } = {},
  ): string {
    const callId = options.callId ?? `${randomBytes(8).toString("hex")}@${this.host}`;
    const body = options.sdp ?? "";
    if (!this.tags.has(callId)) this.tags.set(callId, randomBytes(4).toString("hex"));
    const lines = [
      `${method} sip:14155550123@127.0.0.1 SIP/2.0`,
      `Via: SIP/2.0/WS ${this.host};branch=${options.branch ?? `z9hG4bK${randomBytes(8).toString("hex")}`}`,
      "Max-Forwards: 70",
      `From: <sip:web@${this.host}>;tag=${this.tags.get(callId)}`,
      `To: <sip:14155550123@127.0.0.1>${options.toTag ? `;tag=${options.toTag}` : ""}`,
      `Call-ID: ${callId}`,
      `CSeq: ${options.cseq ?? 1} ${method}`,
      `Contact: <sip:web@${this.host};transport=ws>`,
      ...(options.token ? [`X-Dialer-Token: ${options.token}`] : []),
      ...(body ? ["Content-Type: application/sdp"] : []),
      `Content-Length: ${Buffer.byteLength(body)}`,
      "",
      body,
    ];
    this.socket.send(lines.join("\r\n"));
    return callId;
  }

  send(text: string): void {
    this.socket.send(text);
  }

  /** The first message received that `match` accepts, waiting up to `timeoutMs`. */
  async next(match: (message: string) => boolean, timeoutMs = 8_000): Promise<string> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const found = this.received.find(match);
      if (found) return found;
      if (Date.now() > deadline) throw new Error(`nothing matched; received:\n${this.received.join("\n---\n")}`);
      await new Promise<void>((resolve) => {
        this.waiters.push(resolve);
        setTimeout(resolve, 100);
      });
    }
  }

  /** The final response to the request with Call-ID `callId` and method `method`. */
  final(callId: string, method = "INVITE"): Promise<string> {
    return this.next(
      (m) => m.startsWith("SIP/2.0 ") && !m.startsWith("SIP/2.0 1") && m.includes(callId) && new RegExp(`CSeq: \\d+ ${method}`).test(m),
    );
  }

  close(): void {
    this.socket.close();
  }
}

/** The call's record once its end has reached the Worker. */
async function ended(callId: string | null): Promise<any> {
  const call = async () => {
    const found = await account.call(`/api/calls/${callId}`);
    return found?.status && found.status !== "ringing" && found.status !== "active" && found;
  };
  return until("the call's end at the Worker", call, 10_000, 100).catch(() => null);
}

const statusOf = (response: string) => Number(response.slice(8, 11));
const headerOf = (message: string, name: string) => new RegExp(`^${name}:\\s*(.*)$`, "mi").exec(message)?.[1]?.trim() ?? null;
const bodyOf = (message: string) => message.slice(message.indexOf("\r\n\r\n") + 4);
const PLAIN_SDP =
  "v=0\r\no=- 1 1 IN IP4 127.0.0.1\r\ns=-\r\nc=IN IP4 127.0.0.1\r\nt=0 0\r\nm=audio 40000 RTP/AVP 0\r\na=rtpmap:0 PCMU/8000\r\n";

describe("the WebSocket listener", () => {
  it("refuses a handshake that does not ask for the sip subprotocol", async () => {
    await expect(SipSocket.open(["chat"])).rejects.toThrow("handshake refused: 400");
  });

  it("does not let a client with no token INVITE, and takes nothing else outside a dialog", async () => {
    const open = vi.spyOn(stack.node.media, "open");
    const client = await SipSocket.open();
    const invite = client.request("INVITE", { sdp: PLAIN_SDP });
    const refused = await client.final(invite);
    expect(statusOf(refused)).toBe(403);
    expect(refused).toContain("Dialer token required");
    const garbled = client.request("INVITE", { sdp: PLAIN_SDP, token: "not-a-dialer-token" });
    expect(statusOf(await client.final(garbled))).toBe(403);
    for (const method of ["REGISTER", "OPTIONS", "MESSAGE", "SUBSCRIBE"]) {
      const callId = client.request(method);
      expect(statusOf(await client.final(callId, method)), method).toBe(403);
    }
    const stray = client.request("BYE", { toTag: "nosuchdialog" });
    expect(statusOf(await client.final(stray, "BYE"))).toBe(481);
    expect(open).not.toHaveBeenCalled();
    expect(stack.node.media.ports.used).toBe(0);
    expect((await account.call("/api/calls")).total).toBe(0);
    client.close();
    open.mockRestore();
  });

  it("never admits by the whitelist: a browser on a whitelisted address still needs a token, and gets no OPTIONS answer", async () => {
    const entry = await other.call("/api/customer/ips", { method: "POST", body: { cidr: "127.0.0.1/32", label: "office" } });
    expect(entry?.id).toBeTruthy();
    await stack.node.whitelist.refresh(workerClient({ url: stack.api, nodeToken: stack.nodeToken }));
    expect(stack.node.whitelist.contains("127.0.0.1")).toBe(true);
    const client = await SipSocket.open();
    const invite = await client.final(client.request("INVITE", { sdp: PLAIN_SDP }));
    expect(statusOf(invite)).toBe(403);
    expect(statusOf(await client.final(client.request("OPTIONS"), "OPTIONS"))).toBe(403);
    expect((await other.call("/api/calls")).total).toBe(0);
    client.close();
    await other.call(`/api/customer/ips/${entry.id}`, { method: "DELETE" });
  });
});

describe("a call from a browser", () => {
  it("is placed with a good token: WebRTC media bridged to the destination, hung up from the browser, recorded as origin dialer and charged", async () => {
    const token = await mint(account);
    const destination = uas("uas.xml", uasPort);
    await destination.listening;
    const browser = await NodeBrowser.offer();
    const client = await SipSocket.open();
    const callId = client.request("INVITE", { token, sdp: browser.offerSdp });
    const ok = await client.final(callId);
    expect(statusOf(ok)).toBe(200);
    const recordId = headerOf(ok, "X-Call-Id");
    expect(recordId).toMatch(/^[0-9a-f-]{36}$/);
    await browser.accept(bodyOf(ok));
    const toTag = /^To:.*;tag=([^;\s]+)/im.exec(ok)![1]!;
    client.request("ACK", { callId, toTag });
    // A second of a tone, as a microphone would send it.
    for (let frame = 0; frame < 50; frame++) {
      browser.sendFrame(
        Int16Array.from({ length: 160 }, (_, i) => Math.round(8000 * Math.sin((2 * Math.PI * 440 * (frame * 160 + i)) / 8000))),
      );
      await pause(20); // deliberate: a frame every 20 ms
    }
    const live = await account.call("/api/customer/live-calls");
    expect(live.items.map((c: any) => c.call_id ?? c.id)).toContain(recordId);
    client.request("BYE", { callId, toTag, cseq: 2 });
    expect(statusOf(await client.final(callId, "BYE"))).toBe(200);
    expect((await destination).code).toBe(0);
    await browser.close();
    client.close();
    const call = await ended(recordId);
    expect(call).toMatchObject({ id: recordId, origin: "dialer", status: "completed", hangup_by: "caller", src_ip: "127.0.0.1" });
    expect(call.charged_amount).toBeGreaterThan(0);
    expect(call.qos?.caller?.packets ?? 0).toBeGreaterThan(20);
  });

  it("keeps the browser's WebRTC session as it is: the destination's re-INVITE is answered by the node, the browser's refused 488", async () => {
    const token = await mint(account);
    const destination = uas("uas-dialer-reinvite.xml", uasPort);
    await destination.listening;
    const browser = await NodeBrowser.offer();
    const client = await SipSocket.open();
    const callId = client.request("INVITE", { token, sdp: browser.offerSdp });
    const ok = await client.final(callId);
    expect(statusOf(ok)).toBe(200);
    await browser.accept(bodyOf(ok));
    const toTag = /^To:.*;tag=([^;\s]+)/im.exec(ok)![1]!;
    client.request("ACK", { callId, toTag });
    for (let frame = 0; frame < 40; frame++) {
      browser.sendFrame(new Int16Array(160).fill(1000));
      await pause(20); // deliberate: a frame every 20 ms
    }
    // Nothing of the destination's refresh reached the browser.
    expect(client.received.filter((m) => m.startsWith("INVITE "))).toEqual([]);
    client.request("INVITE", { callId, toTag, cseq: 2, sdp: browser.offerSdp });
    const refused = await client.next((m) => /^SIP\/2\.0 488 /.test(m) && /CSeq: 2 INVITE/.test(m));
    expect(refused).toContain(callId);
    client.request("BYE", { callId, toTag, cseq: 3 });
    expect(statusOf(await client.final(callId, "BYE"))).toBe(200);
    const sipp = await destination;
    expect(sipp.code, sipp.output).toBe(0);
    await browser.close();
    client.close();
  });

  it("hears the destination's BYE over its WebSocket, addressed to its .invalid Contact", async () => {
    const token = await mint(account);
    const destination = uas("uas-bye.xml", uasPort);
    await destination.listening;
    const browser = await NodeBrowser.offer();
    const client = await SipSocket.open();
    const callId = client.request("INVITE", { token, sdp: browser.offerSdp });
    const ok = await client.final(callId);
    expect(statusOf(ok)).toBe(200);
    await browser.accept(bodyOf(ok));
    client.request("ACK", { callId, toTag: /^To:.*;tag=([^;\s]+)/im.exec(ok)![1]! });
    const bye = await client.next((m) => m.startsWith("BYE ") && m.includes(callId));
    expect(bye.split("\r\n")[0]).toBe(`BYE sip:web@${client.host};transport=ws SIP/2.0`);
    expect(headerOf(bye, "Via")).toMatch(/^SIP\/2\.0\/WS /);
    // Our 200 for the BYE, as a browser answers it (the request's Via, From, To, Call-ID and CSeq).
    const keep = ["Via", "From", "To", "Call-ID", "CSeq"].map((name) => `${name}: ${headerOf(bye, name)}`);
    client.send(["SIP/2.0 200 OK", ...keep, "Content-Length: 0", "", ""].join("\r\n"));
    const sipp = await destination;
    expect(sipp.code, sipp.output).toBe(0);
    await browser.close();
    client.close();
    expect(await ended(headerOf(ok, "X-Call-Id"))).toMatchObject({ origin: "dialer", hangup_by: "callee", status: "completed" });
  });

  it("is cancelled from the browser while it rings: 487, the destination cancelled, nothing charged", async () => {
    const token = await mint(account);
    const destination = uas("uas-ring.xml", uasPort);
    await destination.listening;
    const browser = await NodeBrowser.offer();
    const client = await SipSocket.open();
    const branch = `z9hG4bK${randomBytes(8).toString("hex")}`;
    const callId = client.request("INVITE", { token, sdp: browser.offerSdp, branch });
    const ringing = await client.next((m) => m.startsWith("SIP/2.0 180 ") && m.includes(callId));
    client.request("CANCEL", { callId, branch });
    expect(statusOf(await client.final(callId, "CANCEL"))).toBe(200);
    expect(statusOf(await client.final(callId))).toBe(487);
    const sipp = await destination;
    expect(sipp.code, sipp.output).toBe(0);
    await browser.close();
    client.close();
    const call = await ended(headerOf(ringing, "X-Call-Id"));
    expect(call).toMatchObject({ origin: "dialer", answered_at: null, billsec: 0, charged_amount: 0 });
    expect(stack.node.media.ports.used).toBe(0);
  });

  it("ends at once when the browser's WebSocket closes without a BYE (a closed tab)", async () => {
    const token = await mint(account);
    const destination = uas("uas.xml", uasPort);
    await destination.listening;
    const browser = await NodeBrowser.offer();
    const client = await SipSocket.open();
    const callId = client.request("INVITE", { token, sdp: browser.offerSdp });
    const ok = await client.final(callId);
    expect(statusOf(ok)).toBe(200);
    await browser.accept(bodyOf(ok));
    client.request("ACK", { callId, toTag: /^To:.*;tag=([^;\s]+)/im.exec(ok)![1]! });
    // The call is up at the Worker before the tab closes.
    const recordId = headerOf(ok, "X-Call-Id");
    await until(
      "the call live at the Worker",
      async () => (await account.call("/api/customer/live-calls")).items.some((c: any) => (c.call_id ?? c.id) === recordId),
      10_000,
      100,
    );
    const closedAt = Date.now();
    client.close();
    // The destination is sent its BYE (its scenario ends with it) long before the media timeout.
    const sipp = await destination;
    expect(sipp.code, sipp.output).toBe(0);
    expect(Date.now() - closedAt).toBeLessThan(5_000);
    await browser.close();
    expect(await ended(headerOf(ok, "X-Call-Id"))).toMatchObject({
      origin: "dialer",
      end_reason: "websocket_closed",
      hangup_by: "platform",
    });
    expect(stack.node.media.ports.used).toBe(0);
  });

  it("is refused before any media port is taken when the token is spent, expired or another account's", async () => {
    const client = await SipSocket.open();
    const spent = await mint(account);
    // Spent by a call admitted with it (on another node, say).
    const first = await fetch(`${stack.api}/internal/calls/admit`, {
      method: "POST",
      headers: { authorization: `Bearer ${stack.nodeToken}`, "content-type": "application/json" },
      body: JSON.stringify({
        node_id: "other-node",
        sip_call_id: "spent@browser.invalid",
        src_ip: "127.0.0.1",
        ani: null,
        dialed: "14155550123",
        origin: "dialer",
        customer_id: account.id,
        dialer_token: spent,
      }),
    });
    expect(((await first.json()) as { decision: string }).decision).toBe("admit");
    const expired = await mint(account);
    await stack.sql(
      `UPDATE dialer_sessions SET expires_at = '2020-01-01T00:00:00.000Z' WHERE customer_id = '${account.id}' AND used_at IS NULL`,
    );
    const theirs = await mint(other);
    const forged = `${account.id}.${theirs.split(".")[1]}`;
    const before = (await account.call("/api/calls")).total;
    const open = vi.spyOn(stack.node.media, "open");
    for (const [why, token] of [
      ["spent", spent],
      ["expired", expired],
      ["another account's", forged],
    ] as const) {
      const refused = await client.final(client.request("INVITE", { token, sdp: PLAIN_SDP }));
      expect(statusOf(refused), why).toBe(403);
      expect(headerOf(refused, "X-Call-Id"), why).toBeNull();
    }
    expect(open).not.toHaveBeenCalled();
    expect(stack.node.media.ports.used).toBe(0);
    expect((await account.call("/api/calls")).total).toBe(before);
    open.mockRestore();
    client.close();
  });

  it("takes a few calls a second from one address: a burst of guessed tokens gets 503 with Retry-After past that", async () => {
    // Deliberate: the earlier tests' INVITEs from this address are more than a second old, so its bucket is full.
    await pause(1_200);
    const client = await SipSocket.open();
    const guesses = Array.from({ length: 8 }, (_, i) =>
      client.request("INVITE", { token: `${account.id}.${String(i).repeat(43)}`, sdp: PLAIN_SDP }),
    );
    const answers = await Promise.all(guesses.map((callId) => client.final(callId)));
    const codes = answers.map(statusOf);
    // Five at once (a sixth if the bucket refilled meanwhile), the rest refused at the node.
    expect(codes.filter((code) => code === 403).length).toBeGreaterThanOrEqual(5);
    expect(codes.filter((code) => code === 503).length).toBeGreaterThanOrEqual(2);
    expect(codes.filter((code) => code === 403).length + codes.filter((code) => code === 503).length).toBe(8);
    expect(answers.filter((answer) => statusOf(answer) === 503).every((answer) => headerOf(answer, "Retry-After") !== null)).toBe(true);
    client.close();
  });
});
