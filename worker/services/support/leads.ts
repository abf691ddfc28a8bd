// Setup-call requests from the public site (POST /public/leads): stored and mailed to the service
// team. Throttled per source address; a request that fills in the honeypot field (`website`,
// hidden from people) is a bot's: it gets the same answer and nothing is stored or sent. The
// source address is kept only as an HMAC, enough to see that requests came from one place.
import { eq } from "drizzle-orm";
import { leads } from "../../../schema/sharing.ts";
import { hmacSha256Hex } from "../../lib/crypto.ts";
import { newId } from "../../lib/ids.ts";
import { nowIso } from "../../lib/time.ts";
import type { LeadInput } from "../../resources/leads.ts";
import type { Services } from "../context.ts";
import { TooManyRequests } from "../errors.ts";
import { sourceKey } from "../identity/sign-in-throttle.ts";

const ACCEPTED = { accepted: true } as const;

export async function submitLead(s: Services, input: LeadInput, ip: string) {
  const verdict = await s.limiter(`lead-ip:${sourceKey(ip)}`).hit(s.config.LEAD_MAX_PER_IP, s.config.LEAD_WINDOW_SEC);
  if (!verdict.allowed) throw new TooManyRequests("Too many requests, try again later", verdict.retryAfterSec);
  if (input.website?.trim()) return ACCEPTED;

  const row: typeof leads.$inferInsert = {
    id: newId(),
    name: input.name,
    email: input.email,
    company: input.company ?? null,
    platform: input.platform ?? null,
    volume: input.volume ?? null,
    message: input.message ?? null,
    page: input.page ?? null,
    attribution: input.attribution ?? null,
    website: null,
    sourceIpHash: await hmacSha256Hex(`lead-source:${s.config.ENCRYPTION_KEY}`, sourceKey(ip)),
    notifiedAt: null,
    createdAt: nowIso(),
  };
  await s.db.insert(leads).values(row);
  const mailed = await s.mail.send({
    to: [s.config.SERVICE_TEAM_EMAIL],
    subject: `Setup call requested: ${input.name}${input.company ? ` (${input.company})` : ""}`,
    text: leadText(input, row.createdAt),
  });
  if (!mailed.error) await s.db.update(leads).set({ notifiedAt: nowIso() }).where(eq(leads.id, row.id));
  return ACCEPTED;
}

function leadText(input: LeadInput, at: string): string {
  const lines = [
    "A setup call was requested on the site.",
    "",
    `Name: ${input.name}`,
    `E-mail: ${input.email}`,
    `Company: ${input.company ?? "-"}`,
    `Platform: ${input.platform ?? "-"}`,
    `Volume: ${input.volume ?? "-"}`,
    `Page: ${input.page ?? "-"}`,
    `Received: ${at}`,
  ];
  const attribution = Object.entries(input.attribution ?? {});
  if (attribution.length) lines.push(`Attribution: ${attribution.map(([k, v]) => `${k}=${String(v)}`).join(", ")}`);
  if (input.message) lines.push("", input.message);
  return lines.join("\n");
}
