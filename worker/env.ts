// The Worker's bindings and configuration. Vars and secrets are parsed once, at the entry,
// so a missing or malformed setting fails loudly instead of deep inside a request.
import { z } from "@hono/zod-openapi";
import type { DurableObjectBindings } from "./lib/durable-objects.ts";

export type Bindings = DurableObjectBindings & {
  DB: D1Database;
  MEDIA: R2Bucket;
  ANALYSIS_QUEUE: Queue;
  /** Call records and events from the account ledgers' outboxes, written to D1 in batches. */
  CALL_RECORDS_QUEUE: Queue;
  DELIVERY_QUEUE: Queue;
  /** Workers AI (production: `[ai] binding = "AI"`); absent locally, where the offline adapters serve. */
  AI?: { run(model: string, input: Record<string, unknown>): Promise<unknown> };
  ASSETS?: Fetcher;
} & Record<string, unknown>;

const flag = z.enum(["true", "false", "1", "0"]).transform((v) => v === "true" || v === "1");
const int = (min: number) => z.coerce.number().int().min(min);
/** A URL path prefix without a trailing slash ("/exchange"), or "" for the root. */
/** Comma-separated lower-case region codes ("ca,us"). */
const regionList = z
  .string()
  .regex(/^[a-z0-9-]+(,[a-z0-9-]+)*$/, "comma-separated region codes such as ca,us")
  .transform((v) => v.split(","));
const pathPrefix = z.string().regex(/^(\/[A-Za-z0-9._~-]+)*$/, "a path such as /exchange, or empty for the root");

const ConfigFields = z.object({
  // Secrets (wrangler secret put / .dev.vars)
  JWT_SECRET: z.string().min(32, "JWT_SECRET must be at least 32 characters"),
  ENCRYPTION_KEY: z.string().min(32, "ENCRYPTION_KEY must be at least 32 characters"),
  /** The token of SIP nodes not listed in NODE_TOKENS: the single node of local development. */
  NODE_TOKEN: z.string().min(32, "NODE_TOKEN must be at least 32 characters").optional(),
  /** Each node's own token, "node-id:token" pairs separated by commas or whitespace; remove a pair to revoke it. */
  NODE_TOKENS: z
    .string()
    .optional()
    .transform((text, ctx) => {
      const tokens: Record<string, string> = {};
      for (const pair of (text ?? "").split(/[\s,]+/).filter(Boolean)) {
        const match = /^([A-Za-z0-9._-]{1,64}):(.{32,})$/.exec(pair);
        if (!match) ctx.addIssue({ code: "custom", message: "each entry is node-id:token, the token at least 32 characters" });
        else tokens[match[1]!] = match[2]!;
      }
      return tokens;
    }),
  /** Serve /internal only on this host name (the nodes' own route); every other host answers 404 there. */
  INTERNAL_HOSTNAME: z
    .string()
    .regex(/^[a-z0-9.-]+$/i, "a host name such as nodes.example.net")
    .optional(),
  // Vars (wrangler.toml [vars])
  SIGNUP_ENABLED: flag.default(true),
  ACCESS_TOKEN_TTL_SEC: int(60).default(900),
  SESSION_IDLE_TIMEOUT_MIN: int(0).default(0),
  REFRESH_TOKEN_TTL_DAYS: int(1).default(30),
  PASSWORD_PBKDF2_ITERATIONS: int(1000).default(100_000),
  LOGIN_MAX_FAILURES: int(1).default(10),
  LOGIN_FAILURE_WINDOW_SEC: int(1).default(900),
  /** Failed sign-ins (wrong password, unknown e-mail) one source address may make per window. */
  LOGIN_IP_MAX_FAILURES: int(1).default(50),
  /** Every sign-in attempt of one source address per window, successful ones included: a ceiling for floods. */
  LOGIN_IP_MAX_ATTEMPTS: int(1).default(1000),
  SIGNUP_MAX_PER_IP: int(1).default(5),
  SIGNUP_WINDOW_SEC: int(1).default(3600),
  /** OAuth client registrations (RFC 7591, /api/oauth/register) one source address may make per hour. */
  OAUTH_REGISTER_MAX_PER_IP: int(1).default(30),
  SIGNUP_CREDIT_USD: z.coerce.number().min(0).default(5),
  TERMS_VERSION: z.string().default("2026-01"),
  /** Longest call carried, whatever the credit (seconds). */
  MAX_CALL_SECONDS: int(60).default(14_400),
  /** A SIP node's calls are ended (node_lost) this long after its last report or admission. */
  NODE_LEASE_SECONDS: int(1).default(30),
  /** Credit is held for this many seconds of talk at a time, topped up as the call goes on. */
  CREDIT_SLICE_SECONDS: int(10).default(60),
  /** A call whose share of the credit covers less talk than this is refused (402). */
  MIN_GRANT_SECONDS: int(1).default(6),
  /** Lifetime of a recording token (`t` on GET /calls/{id}/recording), for players without an Authorization header. */
  RECORDING_TOKEN_TTL_SEC: int(30).default(300),
  /** Evidence bundles and PDF reports (GET /calls/{id}/export, /report.pdf) an account may make per window, both counted together. */
  CALL_EXPORT_LIMIT: int(1).default(30),
  CALL_EXPORT_WINDOW_SEC: int(1).default(600),
  /** Whitelist entries per account, and whitelist writes (create, change, delete, verify) per account per minute. */
  WHITELIST_MAX_ENTRIES: int(1).default(100),
  WHITELIST_WRITES_PER_MINUTE: int(1).default(30),
  // Cases, support tickets, share links and leads (docs/decisions/cases-support-shares.md).
  /** Where support-ticket messages and setup-call requests (POST /public/leads) are mailed. */
  SERVICE_TEAM_EMAIL: z.email().default("service-team@call-shield.example"),
  /** A share link's lifetime when the request leaves `expires_in_hours` out; null in the request: it never expires. */
  SHARE_DEFAULT_EXPIRES_HOURS: int(1).default(168),
  /** Lifetime of the view token a share link's password unlocks (`X-Share-Token` or `t`). */
  SHARE_VIEW_TOKEN_TTL_SEC: int(60).default(900),
  /** Password attempts one share link takes per window, from anyone. */
  SHARE_UNLOCK_MAX_PER_LINK: int(1).default(10),
  /** Password attempts one source address may make per window, on any link. */
  SHARE_UNLOCK_MAX_PER_IP: int(1).default(30),
  SHARE_UNLOCK_WINDOW_SEC: int(1).default(900),
  /** Setup-call requests (POST /public/leads) one source address may send per window. */
  LEAD_MAX_PER_IP: int(1).default(5),
  LEAD_WINDOW_SEC: int(1).default(3600),
  // Test calls and verified caller IDs (docs/decisions/test-calls-and-dialer.md#test-call-statuses-and-creation).
  /** The caller ID of test calls that name none, and of verification calls: the platform's own number. */
  PLATFORM_CALLER_ID: z
    .string()
    .regex(/^\+?[0-9]{2,32}$/)
    .default("+18005550100"),
  /** Where the portal is, for a test call's confirm_url ({PORTAL_ORIGIN}/app/test-calls/{id}/confirm); unset: the API's own origin. */
  PORTAL_ORIGIN: z.url().optional(),
  /** Test calls (verification calls included) an account may ask for per hour. */
  TEST_CALLS_PER_HOUR: int(1).default(30),
  /**
   * The platform's own route for verification calls ("sip:verify-gw.example.net:5060;transport=tls"):
   * never a customer's destination. Unset: numbers cannot be verified (503). `npm start` points it at
   * a local phone on loopback.
   */
  VERIFY_ROUTE: z
    .string()
    .regex(/^sips?:[^\s@;]+(:\d{1,5})?(;transport=(udp|tcp|tls))?$/i, "a SIP URI such as sip:verify-gw.example.net:5060;transport=tls")
    .optional(),
  /** The digest credential the verification route may ask for (secrets). */
  VERIFY_ROUTE_USERNAME: z.string().optional(),
  VERIFY_ROUTE_PASSWORD: z.string().optional(),
  // Calls the platform places (test, verification and web-dialer calls): daily caps per account, a
  // new account's (pilot, never paid) tighter; the operator sets an account's own (placed_call_policies).
  PLACED_CALLS_PER_DAY: int(1).default(200),
  PLACED_MINUTES_PER_DAY: int(1).default(600),
  NEW_ACCOUNT_PLACED_CALLS_PER_DAY: int(1).default(10),
  NEW_ACCOUNT_PLACED_MINUTES_PER_DAY: int(1).default(30),
  // Caller-ID (CLI) checks and hosted numbers (docs/decisions/cli-checks.md).
  /** The numbers the platform holds for checks, "GB=+442079460000,US=+12025550143" (a country may repeat); unset: none. */
  CLI_NUMBERS: z
    .string()
    .default("")
    .transform((text, ctx) => {
      const numbers: { country: string; number: string }[] = [];
      for (const item of text
        .split(",")
        .map((i) => i.trim())
        .filter(Boolean)) {
        const match = /^([A-Z]{2})=(\+[1-9][0-9]{5,14})$/.exec(item);
        if (match) numbers.push({ country: match[1]!, number: match[2]! });
        else ctx.addIssue({ code: "custom", message: `${item}: expected COUNTRY=+E164, such as GB=+442079460000` });
      }
      return numbers;
    }),
  /** The fee of one check, charged once whatever its result (refunded when the platform could not place it). */
  CLI_CHECK_FEE_USD: z.coerce.number().min(0).default(0.05),
  /** The share of a check's fee its hosted number's holder earns, in percent. */
  HOSTED_NUMBER_SHARE_PERCENT: z.coerce.number().min(0).max(100).default(50),
  /** Where hosted numbers forward their calls: the SIP node's hosted-number listener (CLI_LISTEN_PORT). */
  CLI_LISTENER_URI: z
    .string()
    .regex(/^sips?:[^\s]+$/, "a SIP URI such as sip:cli.example.net:5090")
    .default("sip:127.0.0.1:5090"),
  /** A check whose call was not seen at the number this long after it was placed is not_received. */
  CLI_CHECK_TIMEOUT_SECONDS: int(10).default(90),
  /** Checks sent to a hosted number in a row that it did not receive before it is marked down. */
  HOSTED_NUMBER_MAX_MISSES: int(1).default(3),
  /**
   * The seed (32 bytes, base64url) of the Ed25519 key that signs the account header of placed calls,
   * published at /api/public/call-signing-keys. Unset: derived from ENCRYPTION_KEY (set one of its own
   * to rotate it apart).
   */
  CALL_SIGNING_KEY: z
    .string()
    .regex(/^[A-Za-z0-9_-]{43}$/, "32 bytes in base64url")
    .optional(),
  INGRESS_HOST: z.string().default("127.0.0.1"),
  INGRESS_PORT: int(1).default(5060),
  // The web dialer (docs/decisions/test-calls-and-dialer.md#the-dialer-token-single-use).
  /** Lifetime of a dialer token (POST /customer/dialer/session): minted as a call is placed, spent by its INVITE. */
  DIALER_TOKEN_TTL_SEC: int(10).default(180),
  /** The SIP node's WebSocket listener (RFC 7118) the dialer page connects to: wss:// in production. */
  DIALER_WS_URL: z
    .string()
    .regex(/^wss?:\/\/[^\s/]+(\/\S*)?$/, "a ws:// or wss:// URL such as wss://sip.example.net:7443")
    .default("ws://127.0.0.1:5066"),
  /** WebAuthn relying party (host name and https origin of the portal); required except on loopback (`npm start`). */
  WEBAUTHN_RP_ID: z.string().optional(),
  WEBAUTHN_ORIGIN: z.string().optional(),
  WEBAUTHN_RP_NAME: z.string().default("Call Shield"),
  MAIL_PROVIDER: z.enum(["outbox"]).default("outbox"),
  /** Where the API is reached from outside, for links in alerts and webhook events sent from queues (which have no request to take it from). */
  PUBLIC_ORIGIN: z.url().optional(),
  /**
   * Further origins whose browser pages may call /api/mcp (PUBLIC_ORIGIN, PORTAL_ORIGIN and
   * WEBAUTHN_ORIGIN always may; on loopback, loopback pages): origins separated by commas or spaces.
   */
  MCP_ALLOWED_ORIGINS: z
    .string()
    .optional()
    .transform((text, ctx) => {
      const origins: string[] = [];
      for (const item of (text ?? "").split(/[\s,]+/).filter(Boolean)) {
        const url = URL.canParse(item) ? new URL(item) : null;
        const bare = url && url.pathname === "/" && !url.search && !url.hash && !url.username && !url.password;
        if (!url || !bare || !/^https?:$/.test(url.protocol)) {
          ctx.addIssue({ code: "custom", message: `${item} is not an origin such as https://app.example.net` });
        } else origins.push(url.origin);
      }
      return origins;
    }),
  /** Alert e-mails carry the files a rule asks for up to this many bytes together; past it, links instead. */
  ALERT_ATTACHMENT_MAX_BYTES: int(0).default(10 * 1024 * 1024),
  /** Seconds between a webhook's attempts (ten attempts over about a day); a test stack shortens them. */
  WEBHOOK_RETRY_DELAYS_SEC: z
    .string()
    .regex(/^\d+(,\d+)*$/, "comma-separated seconds")
    .default("30,120,600,1800,3600,7200,14400,28800,28800")
    .transform((v) => v.split(",").map(Number)),
  /** Webhooks and alert channels may post over http to loopback addresses (local development only; production: https to public addresses). */
  OUTBOUND_ALLOW_LOOPBACK: flag.default(false),
  /** The outbox readable at /dev/mail and /dev/mail.json from loopback; only `npm start` turns it on, never a deployed Worker. */
  LOCAL_MAIL_VIEW: flag.default(false),
  // Money and the account (docs/decisions/call-ledger-and-money.md).
  /** Regions where the platform has a media bucket: what PUT /customer/data-location accepts as data_region. */
  DATA_REGIONS: regionList.default(["ca"]),
  /** Regions where the platform has a media relay: what PUT /customer/data-location accepts as media_region. */
  MEDIA_REGIONS: regionList.default(["ca"]),
  /**
   * Card payments: stripe (Checkout with STRIPE_SECRET_KEY), local (the embedded checkout page for
   * `npm start` and tests: never on a deployed Worker, it credits without a card) or off. A
   * STRIPE_SECRET_KEY selects stripe whatever this says, unless it is off.
   */
  PAYMENTS_PROVIDER: z.enum(["stripe", "local", "off"]).default("off"),
  STRIPE_SECRET_KEY: z.string().startsWith("sk_").optional(),
  STRIPE_PUBLISHABLE_KEY: z.string().startsWith("pk_").optional(),
  /** Signs the provider's callbacks (whsec_...); locally a key derived from JWT_SECRET when unset. */
  STRIPE_WEBHOOK_SECRET: z.string().min(16).optional(),
  // The calls pipeline (docs/decisions/calls-and-analysis.md#the-pipeline).
  /** Who turns recordings into text: Workers AI's Whisper, an OpenAI-compatible URL, or nobody. */
  TRANSCRIPTION_PROVIDER: z.enum(["workers-ai", "openai-compatible", "off"]).default("workers-ai"),
  /** Base URL up to /v1 of an OpenAI-compatible speech-to-text service (the offline engine locally). */
  TRANSCRIPTION_URL: z.url().optional(),
  TRANSCRIPTION_MODEL: z.string().default("whisper-1"),
  TRANSCRIPTION_API_KEY: z.string().optional(),
  /** Base URL up to /v1 of an OpenAI-compatible chat service, for tiers whose provider is openai-compatible. */
  ANALYSIS_URL: z.url().optional(),
  /** Overrides the tier's model name at that URL. */
  ANALYSIS_MODEL: z.string().optional(),
  ANALYSIS_API_KEY: z.string().optional(),
  ANALYSIS_PRICE_INPUT_USD_PER_MTOK: z.coerce.number().min(0).default(0),
  ANALYSIS_PRICE_OUTPUT_USD_PER_MTOK: z.coerce.number().min(0).default(0),
  /** Attempts of one transcribe-and-analyse job before it is marked failed. */
  ANALYSIS_MAX_ATTEMPTS: int(1).default(4),
  // The wholesale exchange API (worker/exchange), under these prefixes on every hostname.
  EXCHANGE_PREFIX: pathPrefix.default("/exchange"),
  EXCHANGE_LEGACY_PREFIX: pathPrefix.default("/exchange/v1"),
  /** A hostname of its own for the exchange: there v2 is served at "/" and v1 at "/v1/<controller>.php" (and "/<controller>.php"). */
  EXCHANGE_HOSTNAME: z
    .string()
    .regex(/^[a-z0-9.-]+$/i, "a host name such as exchange.example.net")
    .optional(),
  EXCHANGE_DIGEST_REALM: z
    .string()
    .regex(/^[\x20-\x7e]+$/)
    .refine((v) => !/["\\]/.test(v), "no quotes or backslashes")
    .default("exchange"),
  /** Lifetime of a Digest nonce; after it a correct answer gets 401 with stale=true. */
  EXCHANGE_NONCE_TTL_SEC: int(10).default(300),
  /** Signs Digest nonces; when unset a key derived from JWT_SECRET is used. */
  EXCHANGE_NONCE_SECRET: z.string().min(32, "EXCHANGE_NONCE_SECRET must be at least 32 characters").optional(),
  /** How far a legacy v1 `ts` may be from the server's clock, either way (seconds); each signature is good once. */
  EXCHANGE_LEGACY_WINDOW_SEC: int(1).default(30),
  /** Per-account request limits (exchange_accounts.hourly_quota / per_second_cap override them). */
  EXCHANGE_HOURLY_QUOTA: int(1).default(3600),
  EXCHANGE_PER_SECOND_CAP: int(1).default(10),
  /** Bearer token of the exchange admin endpoints (account creation, keys, credit); without it they are closed. */
  EXCHANGE_ADMIN_TOKEN: z.string().min(32, "EXCHANGE_ADMIN_TOKEN must be at least 32 characters").optional(),
});

const ConfigSchema = ConfigFields.refine((c) => c.NODE_TOKEN !== undefined || Object.keys(c.NODE_TOKENS).length > 0, {
  message: "NODE_TOKEN or NODE_TOKENS must be set",
  path: ["NODE_TOKEN"],
}).refine(
  (c) => c.EXCHANGE_ADMIN_TOKEN === undefined || ![c.NODE_TOKEN, ...Object.values(c.NODE_TOKENS)].includes(c.EXCHANGE_ADMIN_TOKEN),
  { message: "EXCHANGE_ADMIN_TOKEN must differ from every node token", path: ["EXCHANGE_ADMIN_TOKEN"] },
);

export type Config = z.infer<typeof ConfigSchema>;

export class ConfigError extends Error {}

const cache = new WeakMap<object, Config>();

/** Parses the environment once per isolate and binding set. */
export function loadConfig(env: Bindings): Config {
  const cached = cache.get(env);
  if (cached) return cached;
  const parsed = ConfigSchema.safeParse(env);
  if (!parsed.success) {
    const fields = parsed.error.issues.map((i) => `${i.path.join(".")}: ${i.message}`).join("; ");
    throw new ConfigError(`invalid Worker configuration: ${fields}`);
  }
  cache.set(env, parsed.data);
  return parsed.data;
}
