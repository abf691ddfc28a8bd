// The person's side of an AI agent's OAuth authorization, as a browser posts it: the sign-in and
// consent pages of /api/oauth/authorize, filled in and approved. Used by the tests that connect an
// agent (test calls it asks for, agents revoked on Team and access).
import { expect } from "vitest";
import type { Person } from "./fixtures.ts";

/** A browser's cookie jar, as little of one as the consent page needs. */
class CookieJar {
  private readonly cookies = new Map<string, string>();

  take(res: Response): void {
    for (const line of res.headers.getSetCookie()) {
      const pair = line.split(";")[0]!;
      const eq = pair.indexOf("=");
      this.cookies.set(pair.slice(0, eq), pair.slice(eq + 1));
    }
  }

  header(): string {
    return [...this.cookies].map(([k, v]) => `${k}=${v}`).join("; ");
  }
}

const unescapeHtml = (text: string) =>
  text.replace(/&(amp|lt|gt|quot|#39);/g, (_, e: string) => ({ amp: "&", lt: "<", gt: ">", quot: '"', "#39": "'" })[e]!);

const hiddenFields = (html: string): [string, string][] =>
  [...html.matchAll(/<input type="hidden" name="([^"]+)" value="([^"]*)">/g)].map((m) => [unescapeHtml(m[1]!), unescapeHtml(m[2]!)]);

/**
 * The person at the authorization page `url`: signs in with their password, keeps every scope
 * offered and approves. Answers where the page sends the browser back (the agent's redirect URI).
 */
export async function consent(url: URL, person: Person): Promise<URL> {
  const jar = new CookieJar();
  const action = url.origin + url.pathname;
  const post = async (fields: [string, string][]) => {
    const res = await fetch(action, {
      method: "POST",
      redirect: "manual",
      headers: { "content-type": "application/x-www-form-urlencoded", cookie: jar.header(), origin: url.origin },
      body: new URLSearchParams(fields).toString(),
    });
    jar.take(res);
    return res;
  };
  const first = await fetch(url, { redirect: "manual" });
  jar.take(first);
  const signInPage = await first.text();
  expect(first.status, signInPage).toBe(200);
  const signedInPage = await post([...hiddenFields(signInPage), ["email", person.email], ["password", person.password]]);
  const consentPage = await signedInPage.text();
  expect(consentPage, "signed in, the consent page shows").toContain('value="approve"');
  const scopes = [...consentPage.matchAll(/name="grant_scope" value="([^"]+)"/g)].map((m) => ["grant_scope", m[1]!] as [string, string]);
  const decided = await post([...hiddenFields(consentPage), ...scopes, ["action", "approve"]]);
  expect(decided.status, await decided.clone().text()).toBe(302);
  return new URL(decided.headers.get("location")!);
}
