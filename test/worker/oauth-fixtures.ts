// Driving the OAuth server as agents and people do: an agent's HTTP goes through the Worker's
// entry (the clients' own fetch replaced by it), and a person at the consent page is played by
// posting its forms with the CSRF token and cookies the page gave.
import { exports } from "cloudflare:workers";
import { decodeJwt } from "jose";
import * as oauth from "oauth4webapi";
import { expect, vi } from "vitest";
import { ORIGIN } from "./client.ts";

export const MCP_RESOURCE = `${ORIGIN}/api/mcp`;
export const ALL_SCOPES = ["calls:read", "config:write", "test_calls"];

/**
 * fetch, answered by the Worker under test, from a documentation-range address unless the request
 * names one (registrations and sign-ins are throttled per source address).
 */
export function workerFetch(input: RequestInfo | URL, init?: RequestInit): Promise<Response> {
  const request = new Request(input, init);
  if (!request.headers.has("CF-Connecting-IP"))
    request.headers.set("CF-Connecting-IP", `198.51.100.${Math.floor(Math.random() * 254) + 1}`);
  return exports.default.fetch(request);
}

/** oauth4webapi's options: its HTTP goes to the Worker. */
export const viaWorker = { [oauth.customFetch]: workerFetch } as const;

export async function discover(): Promise<oauth.AuthorizationServer> {
  const issuer = new URL(ORIGIN);
  return oauth.processDiscoveryResponse(issuer, await oauth.discoveryRequest(issuer, { algorithm: "oauth2", ...viaWorker }));
}

export const unescapeHtml = (text: string) =>
  text.replace(/&(amp|lt|gt|quot|#39);/g, (_, e: string) => ({ amp: "&", lt: "<", gt: ">", quot: '"', "#39": "'" })[e]!);

/** The hidden fields of the page's form. */
export function hiddenFields(html: string): Record<string, string> {
  const fields: Record<string, string> = {};
  for (const m of html.matchAll(/<input type="hidden" name="([^"]+)" value="([^"]*)">/g)) fields[unescapeHtml(m[1]!)] = unescapeHtml(m[2]!);
  return fields;
}

/** A browser's cookie jar, as little of one as the consent page needs. */
export class CookieJar {
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

/** Someone who authorises an agent: signs in on the page with a password, or comes from the portal with its token. */
export type Person = { email: string; password: string; token?: string };

/** Sends the page's form as a browser would (same origin), fields in order. */
export async function postForm(url: string, jar: CookieJar, fields: [string, string][]): Promise<Response> {
  const res = await workerFetch(url, {
    method: "POST",
    redirect: "manual",
    headers: { "content-type": "application/x-www-form-urlencoded", cookie: jar.header(), origin: ORIGIN },
    body: new URLSearchParams(fields).toString(),
  });
  jar.take(res);
  return res;
}

/**
 * Plays the person: opens the authorization URL, signs in, ticks `scopes` (all offered by
 * default) and approves (or denies). Returns where the browser is sent back to.
 */
export async function consent(
  authorizationUrl: URL | string,
  person: Person,
  options: { scopes?: string[]; action?: "approve" | "deny"; jar?: CookieJar; viaPortal?: boolean } = {},
): Promise<URL> {
  const jar = options.jar ?? new CookieJar();
  const first = await workerFetch(authorizationUrl, { redirect: "manual", headers: { cookie: jar.header() } });
  jar.take(first);
  if (first.status === 302) return new URL(first.headers.get("location")!);
  let page = await first.text();
  expect(first.status, page).toBe(200);
  const action = new URL(authorizationUrl).origin + new URL(authorizationUrl).pathname;
  if (page.includes('name="password"')) {
    const credentials: [string, string][] =
      options.viaPortal && person.token
        ? [["access_token", person.token]]
        : [
            ["email", person.email],
            ["password", person.password],
          ];
    const signIn = await postForm(action, jar, [...Object.entries(hiddenFields(page)), ...credentials]);
    page = await signIn.text();
    expect(signIn.status, page).toBe(200);
    expect(page, "signed in, the consent page shows").toContain('value="approve"');
  }
  const offered = [...page.matchAll(/name="grant_scope" value="([^"]+)"/g)].map((m) => m[1]!);
  const scopes = options.scopes ?? offered;
  const decided = await postForm(action, jar, [
    ...Object.entries(hiddenFields(page)),
    ...scopes.map((s) => ["grant_scope", s] as [string, string]),
    ["action", options.action ?? "approve"],
  ]);
  expect(decided.status, await decided.clone().text()).toBe(302);
  return new URL(decided.headers.get("location")!);
}

/** An authorization URL as a client builds it. */
export function authorizationUrl(
  as: oauth.AuthorizationServer,
  params: { clientId: string; redirectUri: string; challenge?: string; state?: string; scope?: string; resource?: string | null },
): URL {
  const url = new URL(as.authorization_endpoint!);
  url.searchParams.set("response_type", "code");
  url.searchParams.set("client_id", params.clientId);
  url.searchParams.set("redirect_uri", params.redirectUri);
  if (params.challenge) {
    url.searchParams.set("code_challenge", params.challenge);
    url.searchParams.set("code_challenge_method", "S256");
  }
  if (params.state) url.searchParams.set("state", params.state);
  if (params.scope) url.searchParams.set("scope", params.scope);
  if (params.resource !== null) url.searchParams.set("resource", params.resource ?? MCP_RESOURCE);
  return url;
}

/** The OAuth error code a refused request answered, or null when it was not refused. */
export async function oauthErrorOf(work: Promise<unknown>): Promise<string | null> {
  try {
    await work;
    return null;
  } catch (err) {
    if (err instanceof oauth.ResponseBodyError || err instanceof oauth.AuthorizationResponseError) return err.error;
    // A 401 with a challenge (invalid_client after Basic authentication) still carries the error body.
    if (err instanceof oauth.WWWAuthenticateChallengeError) return ((await err.response.json()) as { error: string }).error;
    throw err;
  }
}

/** An agent the person authorised (a public client registered for the occasion): its grant id and tokens. */
export async function authorizeAgent(person: Person, scopes = ALL_SCOPES) {
  const as = await discover();
  const redirectUri = "https://agent.example/callback";
  const client = await oauth.processDynamicClientRegistrationResponse(
    await oauth.dynamicClientRegistrationRequest(
      as,
      {
        redirect_uris: [redirectUri],
        token_endpoint_auth_method: "none",
        grant_types: ["authorization_code", "refresh_token"],
        client_name: "Fixture Agent",
      },
      viaWorker,
    ),
  );
  const verifier = oauth.generateRandomCodeVerifier();
  const url = authorizationUrl(as, {
    clientId: client.client_id,
    redirectUri,
    challenge: await oauth.calculatePKCECodeChallenge(verifier),
    state: "fixture",
  });
  // From the portal when the person has a session: an account with a second factor cannot sign in on the page.
  const params = oauth.validateAuthResponse(as, client, await consent(url, person, { scopes, viaPortal: true }), "fixture");
  const tokens = await oauth.processAuthorizationCodeResponse(
    as,
    client,
    await oauth.authorizationCodeGrantRequest(as, client, oauth.None(), params, redirectUri, verifier, viaWorker),
  );
  return { client, tokens, grantId: decodeJwt(tokens.access_token).gid as string };
}

/** A public address (example.com's) every name resolves to unless a test maps it elsewhere. */
export const PUBLIC_ADDRESS = "93.184.215.14";

export type MetadataServer = { served: string[]; lookups: string[] };

/**
 * Serves client metadata documents at their URLs (a document, or a function making the Response) and
 * answers the DNS-over-HTTPS lookups the address check makes (names resolve to PUBLIC_ADDRESS
 * unless `addresses` maps them); any other fetch goes out as it would.
 */
export function serveClientMetadata(documents: Record<string, unknown>, addresses: Record<string, string[]> = {}): MetadataServer {
  const realFetch = globalThis.fetch;
  const server: MetadataServer = { served: [], lookups: [] };
  vi.spyOn(globalThis, "fetch").mockImplementation(async (input, init) => {
    const url = new URL(input instanceof Request ? input.url : String(input));
    if (url.origin === "https://cloudflare-dns.com" && url.pathname === "/dns-query") {
      const name = url.searchParams.get("name")!;
      const type = Number(url.searchParams.get("type"));
      server.lookups.push(name);
      const data = (addresses[name] ?? [PUBLIC_ADDRESS]).filter((a) => a.includes(":") === (type === 28));
      return Response.json({ Status: 0, Answer: data.map((d) => ({ name, type, TTL: 60, data: d })) });
    }
    if (!(url.href in documents)) return realFetch(input, init);
    server.served.push(url.href);
    const doc = documents[url.href];
    return typeof doc === "function" ? (doc as () => Response)() : Response.json(doc);
  });
  return server;
}
