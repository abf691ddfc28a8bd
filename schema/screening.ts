// Screening before answer: what the SIP node reads of a call's caller-ID attestation (STIR/SHAKEN)
// and the rules the account's ledger applies at admission (number checks, velocity), their
// defaults, and the screening result kept on the call. Shared by the node, the ledger and the
// Worker, so it lives in schema/. The D1 tables: the account's rule settings and its
// do-not-originate list (admission reads both from the admission state, never from D1).
import { index, sqliteTable, text, uniqueIndex } from "drizzle-orm/sqlite-core";
import { z } from "zod";
import { createdAt, customerId, id, json, updatedAt } from "./columns.ts";

// ---- Attestation, as the node read it (RFC 8224, 8225, 8588; ATIS-1000074) ----

export const IdentityStatus = z.enum(["verified", "failed", "absent"]);
export type IdentityStatus = z.infer<typeof IdentityStatus>;
export const Attestation = z.enum(["A", "B", "C"]);
export const Verstat = z.enum(["TN-Validation-Passed", "TN-Validation-Failed", "No-TN-Validation"]);

export const IdentityFacts = z.object({
  /** verified: a PASSporT whose signature, certificate and iat hold; failed: one that does not; absent: none. */
  status: IdentityStatus,
  /**
   * Why it failed: malformed, unsupported_ppt, bad_signature, stale_iat, x5u_refused (a private
   * or non-https address), x5u_unreachable, untrusted_certificate, expired_certificate,
   * orig_mismatch (orig.tn is not the caller ID). Null when verified or absent.
   */
  reason: z.string().max(200).nullable(),
  attestation: Attestation.nullable(),
  orig_tn: z.string().max(32).nullable(),
  dest_tn: z.array(z.string().max(32)).max(10),
  iat: z.number().int().nullable(),
  origid: z.string().max(128).nullable(),
  x5u: z.string().max(2048).nullable(),
  /** An upstream carrier's verification result (verstat on From or P-Asserted-Identity). */
  verstat: Verstat.nullable(),
});
export type IdentityFacts = z.infer<typeof IdentityFacts>;

// ---- Rules ----

export const SCREENING_ACTIONS = ["off", "flag", "refuse", "divert"] as const;
export const ScreeningAction = z.enum(SCREENING_ACTIONS);
export type ScreeningAction = z.infer<typeof ScreeningAction>;

/** What a velocity rule counts by. */
export const VelocityScope = z.enum(["caller_id", "dialled_prefix", "source"]);
export type VelocityScope = z.infer<typeof VelocityScope>;

/**
 * Every rule, with its defaults: number checks and attestation checks flag; velocity rules flag
 * at thresholds a carrier's normal traffic stays under (docs/screening.md says what to set first).
 */
export const RULE_DEFAULTS = {
  // Number checks (libphonenumber-js)
  invalid_caller_id: { action: "flag" },
  caller_id_equals_dialled: { action: "flag" },
  neighbour_spoofing: { action: "flag" },
  do_not_originate: { action: "flag" },
  // Attestation
  identity_failed: { action: "flag" },
  verstat_failed: { action: "flag" },
  unverified_domestic: { action: "off" },
  // Velocity (OpenSIPS fraud_detection's measures, per caller ID, dialled prefix or source)
  calls_per_minute: { action: "flag", scope: "caller_id", threshold: 30 },
  concurrent_calls: { action: "flag", scope: "caller_id", threshold: 10 },
  distinct_numbers_per_hour: { action: "flag", scope: "caller_id", threshold: 100 },
  sequential_dialling: { action: "flag", scope: "caller_id", threshold: 10 },
  short_call_share: { action: "flag", scope: "caller_id", threshold: 60, min_calls: 20, short_seconds: 6 },
} as const satisfies Record<
  string,
  { action: ScreeningAction; scope?: VelocityScope; threshold?: number; min_calls?: number; short_seconds?: number }
>;

export type RuleName = keyof typeof RULE_DEFAULTS;
export const RULE_NAMES = Object.keys(RULE_DEFAULTS) as RuleName[];
export const VELOCITY_RULES = [
  "calls_per_minute",
  "concurrent_calls",
  "distinct_numbers_per_hour",
  "sequential_dialling",
  "short_call_share",
] as const;
export type VelocityRule = (typeof VELOCITY_RULES)[number];

/** One rule as an account set it (defaults filled in). */
export const RuleSetting = z.object({
  action: ScreeningAction,
  /** Velocity rules: what is counted by, the threshold (calls, numbers, a run length, or a percentage). */
  scope: VelocityScope.optional(),
  threshold: z.number().int().min(1).max(1_000_000).optional(),
  /** short_call_share: calls needed before the share counts, and what is short. */
  min_calls: z.number().int().min(1).max(100_000).optional(),
  short_seconds: z.number().int().min(1).max(600).optional(),
  /** Velocity rules: only callers whose dialled number starts with it (dialled_prefix scope: the prefix counted). */
  prefix: z
    .string()
    .regex(/^\+?[0-9]{1,15}$/)
    .optional(),
  /** divert: where the call goes instead. */
  divert_destination_id: z.uuid().optional(),
});
export type RuleSetting = z.infer<typeof RuleSetting>;
export type ScreeningSettings = Record<RuleName, RuleSetting>;

/** The account's settings with every rule's defaults where it set nothing. */
export function withDefaults(stored: Partial<Record<string, RuleSetting>> | null | undefined): ScreeningSettings {
  return Object.fromEntries(RULE_NAMES.map((name) => [name, { ...RULE_DEFAULTS[name], ...(stored?.[name] ?? {}) }])) as ScreeningSettings;
}

// ---- The result kept on the call ----

export const ScreeningFlag = z.object({
  rule: z.string(),
  /** What the rule saw, in a sentence ("31 calls in a minute from +14155550100"). */
  detail: z.string(),
  action: ScreeningAction,
});
export type ScreeningFlag = z.infer<typeof ScreeningFlag>;

export const ScreeningResult = z.object({
  identity: IdentityFacts.nullable(),
  flags: z.array(ScreeningFlag),
  /** What admission did because of the rules: refuse (603) or divert; null: nothing. */
  action: z.enum(["refuse", "divert"]).nullable(),
  rule: z.string().nullable(),
});
export type ScreeningResult = z.infer<typeof ScreeningResult>;

// ---- D1 ----

export const screeningSettings = sqliteTable("screening_settings", {
  customerId: text("customer_id").primaryKey(),
  /** Only what the account changed from the defaults, by rule name. */
  rules: json<Partial<Record<string, RuleSetting>>>("rules").notNull(),
  updatedAt: updatedAt(),
});

/** Numbers that never place calls (the account's own inbound-only numbers, a list it uploads): a call claiming one is flagged or refused. */
export const doNotOriginate = sqliteTable(
  "do_not_originate",
  {
    id: id(),
    customerId: customerId(),
    /** E.164. */
    number: text("number").notNull(),
    label: text("label"),
    createdAt: createdAt(),
  },
  (t) => [
    uniqueIndex("do_not_originate_customer_number_idx").on(t.customerId, t.number),
    index("do_not_originate_customer_idx").on(t.customerId, t.createdAt),
  ],
);
