// Calls the platform places for an account (test calls, verification calls, web-dialer calls)
// leave from the platform's addresses, which every customer's switch trusts because screened calls
// come from them. So they are held to a number policy (premium-rate and high-cost ranges refused
// unless the platform's operator allows them for the account) and to daily caps on their count and
// talk minutes, tighter for a new account; the caps are counted in the account's ledger, atomically.
import { parsePhoneNumberFromString } from "libphonenumber-js/max";
import { and, eq } from "drizzle-orm";
import { payments } from "../../../schema/billing.ts";
import { customers } from "../../../schema/identity.ts";
import { placedCallPolicies } from "../../../schema/test-calls.ts";
import type { PlacedCallCaps } from "../../../durable-objects/call-ledger/call-ledger.ts";
import { nowIso } from "../../lib/time.ts";
import { normalizeNumber, toE164 } from "../../../schema/numbers.ts";
import type { Services } from "../context.ts";
import type { PlacedCallPolicy, PlacedCallPolicyUpdate } from "../../resources/admin.ts";
import { Forbidden, InvalidField, NotFound, TooManyRequests } from "../errors.ts";
import { actingLabel, sessionRole, type Principal } from "../identity/principal.ts";

/**
 * Ranges the platform does not ring for an account unless its operator allows them, beyond what
 * libphonenumber-js types as premium rate: ranges billed to the caller at a high rate or shared
 * with the number's holder (the currency of toll fraud), including forms the library's metadata
 * does not type (a premium prefix with a length it does not know). Documented in docs/decisions/test-calls-and-dialer.md#calls-the-platform-places-cannot-be-aimed-at-others.
 */
export const REFUSED_RANGES: { pattern: RegExp; why: string }[] = [
  { pattern: /^\+1900/, why: "North American premium rate (900)" },
  { pattern: /^\+1[2-9][0-9]{2}976/, why: "North American pay-per-call exchange (976)" },
  { pattern: /^\+979/, why: "International Premium Rate Service" },
  { pattern: /^\+808/, why: "International Shared Cost Service" },
  { pattern: /^\+870/, why: "Inmarsat" },
  { pattern: /^\+88[1-3]/, why: "Global Mobile Satellite Systems and International Networks" },
  { pattern: /^\+449/, why: "United Kingdom premium rate (09)" },
  { pattern: /^\+4487[1-3]/, why: "United Kingdom revenue-sharing (087)" },
  { pattern: /^\+4470/, why: "United Kingdom personal numbering (070)" },
  { pattern: /^\+49(900|137)/, why: "Germany premium rate and mass calling (0900, 0137)" },
  { pattern: /^\+3389/, why: "France premium rate (089)" },
  { pattern: /^\+3989[29]/, why: "Italy premium rate (892, 899)" },
  { pattern: /^\+34(80[3-7]|90[57])/, why: "Spain premium rate (803-807, 905, 907)" },
  { pattern: /^\+3290/, why: "Belgium premium rate (090x)" },
  { pattern: /^\+3190[069]/, why: "Netherlands premium rate (0900, 0906, 0909)" },
  { pattern: /^\+4190[016]/, why: "Switzerland premium rate (0900, 0901, 0906)" },
  { pattern: /^\+439[03]/, why: "Austria premium rate (090x, 093x)" },
  { pattern: /^\+6119/, why: "Australia premium rate (190x)" },
];

/** Countries whose national numbers start with a trunk 0 and which have refused ranges above. */
const TRUNK_ZERO_COUNTRIES = ["44", "49", "33", "31", "32", "41", "43", "61"];

/**
 * The E.164 numbers `number` may reach: as international; and, since the switch it goes through
 * may read it in its own country, a bare ten-digit number also as North American, and a national
 * number (one leading 0) also in each trunk-0 country above.
 */
function readingsOf(number: string): string[] {
  const digits = normalizeNumber(number);
  const readings = [toE164(digits) ?? `+${digits.replace(/^\+/, "")}`];
  if (/^[2-9][0-9]{9}$/.test(digits)) readings.push(`+1${digits}`);
  if (/^0[1-9]/.test(digits)) readings.push(...TRUNK_ZERO_COUNTRIES.map((cc) => `+${cc}${digits.slice(1)}`));
  return readings;
}

/** Why the platform will not ring `number` for this account (null: it may). */
export function refusedRange(number: string, allowPrefixes: readonly string[] = []): string | null {
  for (const e164 of readingsOf(number)) {
    if (allowPrefixes.some((prefix) => e164.startsWith(prefix))) continue;
    const listed = REFUSED_RANGES.find((range) => range.pattern.test(e164));
    if (listed) return `${listed.why}, read as ${e164}`;
    if (parsePhoneNumberFromString(e164)?.getType() === "PREMIUM_RATE") return `premium rate, read as ${e164}`;
  }
  return null;
}

type Policy = { allowPrefixes: string[]; caps: PlacedCallCaps };

/** The account's number policy and daily caps: its operator's settings, else the configured ones (a new account's when it never paid). */
export async function placedCallPolicyOf(s: Services, customerId: string): Promise<Policy> {
  const own = await s.db.select().from(placedCallPolicies).where(eq(placedCallPolicies.customerId, customerId)).get();
  const isNew = !(await s.db
    .select({ id: payments.id })
    .from(payments)
    .where(and(eq(payments.customerId, customerId), eq(payments.status, "complete")))
    .get());
  const c = s.config;
  const calls = own?.callsPerDay ?? (isNew ? c.NEW_ACCOUNT_PLACED_CALLS_PER_DAY : c.PLACED_CALLS_PER_DAY);
  const minutes = own?.minutesPerDay ?? (isNew ? c.NEW_ACCOUNT_PLACED_MINUTES_PER_DAY : c.PLACED_MINUTES_PER_DAY);
  return { allowPrefixes: own?.allowPrefixes ?? [], caps: { calls, seconds: minutes * 60 } };
}

/** Refuses (422 on `field`) a number the policy keeps the platform from ringing for the account. */
export function requireAllowedNumber(policy: Pick<Policy, "allowPrefixes">, number: string, field = "number"): void {
  const why = refusedRange(number, policy.allowPrefixes);
  if (why)
    throw new InvalidField(field, `number_not_allowed: the platform does not place calls to this range (${why})`, "number_not_allowed");
}

/** Counts a call the account asks the platform to place now (a test or verification call); 429 past the day's caps. */
export async function takePlacedCall(s: Services, customerId: string, policy: Policy): Promise<void> {
  const verdict = await s.ledger(customerId).takePlacedCall({ now: nowIso(), caps: policy.caps });
  if (!verdict.allowed) {
    throw new TooManyRequests(verdict.cap === "calls" ? "placed_calls_daily_cap" : "placed_minutes_daily_cap", verdict.retryAfterSec);
  }
}

// ---- The operator's settings of one account (our extension: /admin/customers/{id}/placed-call-policy) ----

function requireAdmin(principal: Principal): void {
  if (sessionRole(principal) !== "admin" || principal.via !== "token") throw new Forbidden("admin_required");
}

async function policyOut(s: Services, customerId: string): Promise<PlacedCallPolicy> {
  const own = await s.db.select().from(placedCallPolicies).where(eq(placedCallPolicies.customerId, customerId)).get();
  const { caps } = await placedCallPolicyOf(s, customerId);
  return {
    customer_id: customerId,
    allow_prefixes: own?.allowPrefixes ?? [],
    calls_per_day: own?.callsPerDay ?? null,
    minutes_per_day: own?.minutesPerDay ?? null,
    effective: { calls_per_day: caps.calls, minutes_per_day: caps.seconds / 60 },
    updated_by: own?.updatedBy ?? null,
    updated_at: own?.updatedAt ?? null,
  };
}

async function requireCustomer(s: Services, customerId: string): Promise<void> {
  const found = await s.db.select({ id: customers.id }).from(customers).where(eq(customers.id, customerId)).get();
  if (!found) throw new NotFound("Customer not found");
}

export async function getPlacedCallPolicy(s: Services, admin: Principal, customerId: string): Promise<PlacedCallPolicy> {
  requireAdmin(admin);
  await requireCustomer(s, customerId);
  return policyOut(s, customerId);
}

/** Sets what is given (a field left out keeps its value; null caps return to the configured ones). */
export async function updatePlacedCallPolicy(
  s: Services,
  admin: Principal,
  customerId: string,
  input: PlacedCallPolicyUpdate,
): Promise<PlacedCallPolicy> {
  requireAdmin(admin);
  await requireCustomer(s, customerId);
  const patch = {
    ...(input.allow_prefixes !== undefined ? { allowPrefixes: [...new Set(input.allow_prefixes)] } : {}),
    ...(input.calls_per_day !== undefined ? { callsPerDay: input.calls_per_day } : {}),
    ...(input.minutes_per_day !== undefined ? { minutesPerDay: input.minutes_per_day } : {}),
    updatedBy: actingLabel(admin),
    updatedAt: nowIso(),
  };
  await s.db
    .insert(placedCallPolicies)
    .values({ customerId, allowPrefixes: [], ...patch })
    .onConflictDoUpdate({ target: placedCallPolicies.customerId, set: patch });
  return policyOut(s, customerId);
}
