// Secrets never pass through an agent's conversation (issue 29): the tools that configure
// something with a secret (a destination's digest credential, webhook secret or provider key;
// the account webhook's signing secret) take none, and answer instead the portal page where a
// person types it. A secret an agent sends anyway is not stored: the answer names it as ignored.
import { z } from "@hono/zod-openapi";
import type { Services } from "../../services/context.ts";

/** An address of the portal: PORTAL_ORIGIN when set, else this service's own origin (as a test call's confirm_url). */
export const portalUrl = (s: Services, path: string) => `${s.config.PORTAL_ORIGIN ?? s.origin}/app${path}`;

export const NO_SECRETS =
  "Secrets never pass through an agent's conversation: this tool takes none, and a person types them on the portal page " +
  "the answer links to (secret_url).";

/** What a tool answers beside its record: where the person goes, and what it did not take. */
export const secretFields = {
  secret_url: z.string().describe("The portal page where a person sets the secret(s); give the person this link"),
  ignored_secrets: z
    .array(z.string())
    .describe("Secret arguments this call carried and that were not stored (secrets are typed by a person at secret_url)"),
};

/** The names among `secrets` that the arguments carry (with a value), in that order. */
export const ignoredSecrets = (args: Record<string, unknown>, secrets: readonly string[]) =>
  secrets.filter((name) => args[name] !== undefined && args[name] !== null);

export const ignoredNote = (ignored: string[]) =>
  ignored.length ? ` Not stored: ${ignored.join(", ")} (an agent's call never sets a secret).` : "";
