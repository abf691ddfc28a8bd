// The account's qualification answers (any user, audited against who acted) and the
// owner's acceptance of the Terms in force.
import { eq } from "drizzle-orm";
import { auditLog, customers, type Profile } from "../../../schema/identity.ts";
import { newId } from "../../lib/ids.ts";
import { nowIso } from "../../lib/time.ts";
import type { Services } from "../context.ts";
import { Forbidden } from "../errors.ts";
import type { Principal } from "../identity/principal.ts";

const FIELDS = ["switch_vendor", "expected_volume", "contact_role", "region", "referral_source", "phone"] as const;

const profileOut = (profile: Profile | null, completedAt: string | null) => ({
  ...Object.fromEntries(FIELDS.map((f) => [f, profile?.[f] ?? null])),
  profile_completed_at: completedAt,
});

export function getProfile(principal: Principal) {
  return profileOut(principal.customer.profile, principal.customer.profileCompletedAt);
}

export async function updateProfile(
  { db }: Services,
  principal: Principal,
  input: Partial<Record<(typeof FIELDS)[number], string | null>> & { skipped?: boolean },
) {
  const now = nowIso();
  const changes = Object.fromEntries(FIELDS.filter((f) => input[f] !== undefined).map((f) => [f, input[f]]));
  const profile = input.skipped ? principal.customer.profile : { ...principal.customer.profile, ...changes };
  await db.batch([
    db.update(customers).set({ profile, profileCompletedAt: now, updatedAt: now }).where(eq(customers.id, principal.customer.id)),
    db.insert(auditLog).values({
      id: newId(),
      customerId: principal.customer.id,
      actorUserId: principal.user.id,
      actorLabel: principal.impersonatedBy ? `${principal.impersonatedBy} (administrator)` : principal.user.email,
      action: input.skipped ? "profile.skipped" : "profile.updated",
      detail: { fields: Object.keys(changes) },
      createdAt: now,
    }),
  ]);
  return profileOut(profile ?? null, now);
}

/** Only the owner, signed into the portal in person, accepts the Terms. */
export async function acceptTerms({ db, config }: Services, principal: Principal) {
  if (principal.via !== "token" || principal.impersonatedBy) throw new Forbidden("portal_session_required");
  const current = config.TERMS_VERSION;
  if (principal.customer.termsVersion === current && principal.customer.termsAcceptedAt) {
    return { terms_version: current, terms_accepted_at: principal.customer.termsAcceptedAt, terms_current_version: current };
  }
  const now = nowIso();
  await db.batch([
    db
      .update(customers)
      .set({ termsVersion: current, termsAcceptedAt: now, updatedAt: now })
      .where(eq(customers.id, principal.customer.id)),
    db.insert(auditLog).values({
      id: newId(),
      customerId: principal.customer.id,
      actorUserId: principal.user.id,
      actorLabel: principal.user.email,
      action: "terms.accepted",
      detail: { version: current },
      createdAt: now,
    }),
  ]);
  return { terms_version: current, terms_accepted_at: now, terms_current_version: current };
}
