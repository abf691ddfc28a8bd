import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { loadSipNodeConfig } from "../../sip-node/config.ts";

const token = "t".repeat(32);

describe("SIP node configuration", () => {
  it("defaults to loopback on 5060 and the local Worker", () => {
    expect(loadSipNodeConfig({ NODE_TOKEN: token })).toEqual({
      sip: { bind: "127.0.0.1", port: 5060, publicAddress: "127.0.0.1", ws: null },
      media: {
        portMin: 20_000,
        portMax: 29_999,
        bind: "127.0.0.1",
        timeoutMs: 60_000,
        holdTimeoutMs: 7_200_000,
        spoolDir: join(tmpdir(), "call-shield-media", "local-1"),
        allowedPrivateRanges: [],
        webrtcPublicAddress: null,
      },
      worker: { url: "http://127.0.0.1:8787", nodeToken: token, nodeId: "local-1" },
      nodeId: "local-1",
      region: "ca",
      logLevel: "info",
      noAnswerSeconds: 90,
      callsPerSecondPerSource: 500,
      heartbeatSeconds: 10,
      drainSeconds: 30,
      tls: { verify: true },
      stir: { trustAnchors: null, verifyChain: true, iatMaxAgeSeconds: 60 },
    });
  });

  it("takes the public address for Via and SDP apart from the bind address", () => {
    const config = loadSipNodeConfig({
      NODE_TOKEN: token,
      SIP_BIND: "0.0.0.0",
      SIP_PORT: "5080",
      SIP_PUBLIC_ADDRESS: "203.0.113.10",
      WORKER_URL: "https://api.example.net/",
    });
    expect(config.sip).toEqual({ bind: "0.0.0.0", port: 5080, publicAddress: "203.0.113.10", ws: null });
    expect(config.worker.url).toBe("https://api.example.net");
  });

  it("takes the web dialer's ICE address apart, as an IP address", () => {
    expect(loadSipNodeConfig({ NODE_TOKEN: token, WEBRTC_PUBLIC_ADDRESS: "198.51.100.7" }).media.webrtcPublicAddress).toBe("198.51.100.7");
    expect(() => loadSipNodeConfig({ NODE_TOKEN: token, WEBRTC_PUBLIC_ADDRESS: "node.example.net" })).toThrow(
      "WEBRTC_PUBLIC_ADDRESS: must be an IPv4 or IPv6 address",
    );
  });

  it("refuses to start with every bad setting named", () => {
    expect(() => loadSipNodeConfig({ SIP_PORT: "70000", RTP_PORT_MIN: "30000", RTP_PORT_MAX: "20000", SIP_BIND: "localhost" })).toThrow(
      /SIP_BIND: must be an IPv4 or IPv6 address; SIP_PORT: .*; NODE_TOKEN: /,
    );
    expect(() => loadSipNodeConfig({ NODE_TOKEN: token, RTP_PORT_MIN: "30000", RTP_PORT_MAX: "20000" })).toThrow(
      "RTP_PORT_MIN: RTP_PORT_MIN must be below RTP_PORT_MAX",
    );
  });
});
