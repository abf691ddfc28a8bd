// The SIP node's whole configuration, validated once at start. Nothing else in sip-node/
// reads process.env: main passes the environment here and hands the result down.
import { readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { z } from "zod";
import { parseCidr } from "../schema/cidr.ts";

const port = z.coerce.number().int().min(1).max(65_535);

const SipNodeConfigSchema = z
  .object({
    SIP_BIND: z.union([z.ipv4(), z.ipv6()], { error: "must be an IPv4 or IPv6 address" }).default("127.0.0.1"),
    SIP_PORT: port.default(5060),
    /** The address put in Via, Contact and SDP; the bind address unless behind NAT. */
    SIP_PUBLIC_ADDRESS: z.string().min(1).optional(),
    RTP_PORT_MIN: port.default(20_000),
    RTP_PORT_MAX: port.default(29_999),
    WORKER_URL: z.url().default("http://127.0.0.1:8787"),
    NODE_TOKEN: z.string().min(32, "NODE_TOKEN must be at least 32 characters"),
    NODE_ID: z.string().min(1).default("local-1"),
    REGION: z.string().min(1).default("ca"),
    LOG_LEVEL: z.enum(["debug", "info", "warn", "error"]).default("info"),
    /** A destination that rings this long without answering is cancelled (the caller hears 480). */
    NO_ANSWER_SECONDS: z.coerce.number().int().min(1).max(600).default(90),
    /** Extra certificate authorities (PEM file) trusted for destinations reached over TLS. */
    SIP_TLS_CA_FILE: z.string().min(1).optional(),
    /** Check TLS destinations' certificates (chain and name); "false" only for a lab. */
    SIP_TLS_VERIFY: z.enum(["true", "false"]).default("true"),
    /** New calls a second one source address may start; beyond it they get 503 with Retry-After. */
    CALLS_PER_SECOND_PER_SOURCE: z.coerce.number().int().min(1).max(100_000).default(500),
    /**
     * The address of the web dialer's ICE host candidate, where browsers send their WebRTC media
     * (an IP literal); SIP_PUBLIC_ADDRESS (else the bind address) by default.
     */
    WEBRTC_PUBLIC_ADDRESS: z.union([z.ipv4(), z.ipv6()], { error: "must be an IPv4 or IPv6 address" }).optional(),
    /** The address RTP sockets bind to; the SIP bind address by default. */
    RTP_BIND: z.union([z.ipv4(), z.ipv6()], { error: "must be an IPv4 or IPv6 address" }).optional(),
    /** An answered call with no RTP either way for this long is ended (end_reason media_timeout). */
    RTP_TIMEOUT_SECONDS: z.coerce.number().min(0.5).max(3600).default(60),
    /** The same while a side holds the call (sendonly, recvonly, inactive): silence is expected. */
    RTP_HOLD_TIMEOUT_SECONDS: z.coerce.number().min(1).max(86_400).default(7200),
    /** Where recordings and captures are written until the Worker has them; one node's alone. */
    MEDIA_SPOOL_DIR: z.string().min(1).optional(),
    /**
     * Comma-separated CIDRs of the operator's own network that destinations and SDP addresses may
     * be in though they are private, loopback, link-local or CGNAT (refused otherwise). Loopback is
     * allowed anyway when the node itself listens on loopback.
     */
    SIP_ALLOWED_PRIVATE_RANGES: z
      .string()
      .default("")
      .transform((text, ctx) => {
        const ranges: string[] = [];
        for (const item of text
          .split(",")
          .map((r) => r.trim())
          .filter(Boolean)) {
          const cidr = parseCidr(item);
          if ("problem" in cidr) ctx.addIssue({ code: "custom", message: `${item}: ${cidr.problem}` });
          else ranges.push(cidr.canonical);
        }
        return ranges;
      }),
    /**
     * The web dialer's SIP over WebSocket listener (RFC 7118) on SIP_BIND; absent: none. WSS with
     * SIP_WS_CERT_FILE and SIP_WS_KEY_FILE (PEM); plain WS only while SIP_BIND is loopback.
     */
    SIP_WS_PORT: z.coerce.number().int().min(0).max(65_535).optional(),
    SIP_WS_CERT_FILE: z.string().min(1).optional(),
    SIP_WS_KEY_FILE: z.string().min(1).optional(),
    /**
     * The hosted-number listener (CLI checks): a SIP listener of its own on SIP_BIND, UDP and TCP,
     * apart from the trunk's port, answering calls to numbers the platform holds; absent: none.
     */
    CLI_LISTEN_PORT: z.coerce.number().int().min(0).max(65_535).optional(),
    /** How often the node renews its lease with the call ledger (a report naming every call it carries). */
    NODE_HEARTBEAT_SECONDS: z.coerce.number().min(0.1).max(300).default(10),
    /** On SIGTERM, how long calls up may go on before the node ends them (end_reason node_drain). */
    NODE_DRAIN_SECONDS: z.coerce.number().min(0).max(86_400).default(30),
    /**
     * STIR/SHAKEN: the certificate authorities (PEM bundle) a PASSporT's certificate must chain to
     * (the STI-PA's list of STI-CAs); absent: none, so no PASSporT verifies unless STIR_VERIFY_CHAIN is "false".
     */
    STIR_TRUST_ANCHORS_FILE: z.string().min(1).optional(),
    /** Check a PASSporT's certificate chain against the trust anchors; "false" only for a lab (signature and dates still checked). */
    STIR_VERIFY_CHAIN: z.enum(["true", "false"]).default("true"),
    /** A PASSporT whose iat is further than this from now fails (stale_iat); ATIS-1000074's 60 s. */
    STIR_IAT_MAX_AGE_SECONDS: z.coerce.number().int().min(1).max(3600).default(60),
  })
  .refine((c) => c.RTP_PORT_MIN < c.RTP_PORT_MAX, {
    message: "RTP_PORT_MIN must be below RTP_PORT_MAX",
    path: ["RTP_PORT_MIN"],
  })
  .refine((c) => (c.SIP_WS_CERT_FILE === undefined) === (c.SIP_WS_KEY_FILE === undefined), {
    message: "SIP_WS_CERT_FILE and SIP_WS_KEY_FILE go together",
    path: ["SIP_WS_CERT_FILE"],
  })
  // A browser's token and SDP cross the WebSocket: in clear text only on this machine.
  .refine((c) => c.SIP_WS_PORT === undefined || c.SIP_WS_CERT_FILE !== undefined || isLoopbackHost(c.SIP_BIND), {
    message: "must come with SIP_WS_CERT_FILE and SIP_WS_KEY_FILE (WSS) unless SIP_BIND is loopback",
    path: ["SIP_WS_PORT"],
  })
  // The listener is apart from the trunk's port, so the trunk's stranger rule stays whole.
  .refine((c) => c.CLI_LISTEN_PORT === undefined || c.CLI_LISTEN_PORT === 0 || c.CLI_LISTEN_PORT !== c.SIP_PORT, {
    message: "must differ from SIP_PORT",
    path: ["CLI_LISTEN_PORT"],
  })
  // The node token and every recording travel to the Worker: in clear text only on this machine.
  .refine((c) => new URL(c.WORKER_URL).protocol === "https:" || isLoopbackHost(new URL(c.WORKER_URL).hostname), {
    message: "must be https unless the Worker is on loopback",
    path: ["WORKER_URL"],
  });

function isLoopbackHost(hostname: string): boolean {
  const host = hostname.replace(/^\[|\]$/g, "");
  return host === "localhost" || host === "::1" || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(host);
}

export type SipNodeConfig = {
  /** ws: the web dialer's WebSocket listener (null: none); tls holds the PEM certificate and key of WSS. */
  sip: { bind: string; port: number; publicAddress: string; ws: { port: number; tls?: { cert: string; key: string } } | null };
  media: {
    portMin: number;
    portMax: number;
    bind: string;
    timeoutMs: number;
    holdTimeoutMs: number;
    spoolDir: string;
    /** Private ranges the node may still send SIP and RTP to (SIP_ALLOWED_PRIVATE_RANGES). */
    allowedPrivateRanges: string[];
    /** The web dialer's ICE host candidate address (WEBRTC_PUBLIC_ADDRESS); null: the SIP public address. */
    webrtcPublicAddress: string | null;
  };
  /** nodeId names the node to the Worker (X-Node-Id), whose NODE_TOKENS may hold a token of this node's own. */
  worker: { url: string; nodeToken: string; nodeId: string };
  nodeId: string;
  region: string;
  logLevel: "debug" | "info" | "warn" | "error";
  noAnswerSeconds: number;
  callsPerSecondPerSource: number;
  heartbeatSeconds: number;
  drainSeconds: number;
  tls: { ca?: string; verify: boolean };
  /** The hosted-number listener's port (CLI_LISTEN_PORT, 0: any free one) on the SIP bind address; absent: no listener. */
  cli?: { port: number };
  /** STIR/SHAKEN verification: the trust anchors' PEM (null: none), whether the chain is checked, iat's freshness. */
  stir: { trustAnchors: string | null; verifyChain: boolean; iatMaxAgeSeconds: number };
};

/** Parses the environment into the node's configuration, or throws naming every bad setting. */
export function loadSipNodeConfig(env: Record<string, string | undefined>): SipNodeConfig {
  const parsed = SipNodeConfigSchema.safeParse(env);
  if (!parsed.success) {
    const problems = parsed.error.issues.map((i) => `${i.path.join(".")}: ${i.message}`).join("; ");
    throw new Error(`invalid SIP node configuration: ${problems}`);
  }
  const c = parsed.data;
  return {
    sip: {
      bind: c.SIP_BIND,
      port: c.SIP_PORT,
      publicAddress: c.SIP_PUBLIC_ADDRESS ?? c.SIP_BIND,
      ws:
        c.SIP_WS_PORT === undefined
          ? null
          : {
              port: c.SIP_WS_PORT,
              ...(c.SIP_WS_CERT_FILE && c.SIP_WS_KEY_FILE
                ? { tls: { cert: readFileSync(c.SIP_WS_CERT_FILE, "utf8"), key: readFileSync(c.SIP_WS_KEY_FILE, "utf8") } }
                : {}),
            },
    },
    media: {
      portMin: c.RTP_PORT_MIN,
      portMax: c.RTP_PORT_MAX,
      bind: c.RTP_BIND ?? c.SIP_BIND,
      timeoutMs: c.RTP_TIMEOUT_SECONDS * 1000,
      holdTimeoutMs: c.RTP_HOLD_TIMEOUT_SECONDS * 1000,
      // One node's alone: at start, whatever is in it was left by this node's previous run.
      spoolDir: c.MEDIA_SPOOL_DIR ?? join(tmpdir(), "call-shield-media", c.NODE_ID),
      allowedPrivateRanges: c.SIP_ALLOWED_PRIVATE_RANGES,
      webrtcPublicAddress: c.WEBRTC_PUBLIC_ADDRESS ?? null,
    },
    worker: { url: c.WORKER_URL.replace(/\/$/, ""), nodeToken: c.NODE_TOKEN, nodeId: c.NODE_ID },
    nodeId: c.NODE_ID,
    region: c.REGION,
    logLevel: c.LOG_LEVEL,
    noAnswerSeconds: c.NO_ANSWER_SECONDS,
    callsPerSecondPerSource: c.CALLS_PER_SECOND_PER_SOURCE,
    heartbeatSeconds: c.NODE_HEARTBEAT_SECONDS,
    drainSeconds: c.NODE_DRAIN_SECONDS,
    tls: { ...(c.SIP_TLS_CA_FILE ? { ca: readFileSync(c.SIP_TLS_CA_FILE, "utf8") } : {}), verify: c.SIP_TLS_VERIFY === "true" },
    ...(c.CLI_LISTEN_PORT === undefined ? {} : { cli: { port: c.CLI_LISTEN_PORT } }),
    stir: {
      trustAnchors: c.STIR_TRUST_ANCHORS_FILE ? readFileSync(c.STIR_TRUST_ANCHORS_FILE, "utf8") : null,
      verifyChain: c.STIR_VERIFY_CHAIN === "true",
      iatMaxAgeSeconds: c.STIR_IAT_MAX_AGE_SECONDS,
    },
  };
}
