// The portal's browser tests in the words of the spec: accounts (an owner signed up, a member
// invited), a trunk and real calls through the `npm start` stack the project's global setup runs
// (sipp on loopback), and Debian's chromium driven by playwright-core, with every console error
// and CSP violation of a test's pages failing it, an axe-core pass and screenshots at 1440 and
// 390 px wide (test-results/portal/).
import { closeSync, mkdirSync, mkdtempSync, openSync, readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { chromium, type Browser, type BrowserContext, type CDPSession, type Page } from "playwright-core";
import { afterAll, expect, inject, type TestContext } from "vitest";
import { answersFrom, freeUdpPort, uac, uas, until, type Stack } from "../sip-node/harness.ts";
import { callScript, speechPcap } from "../sip-node/speech-pcap.ts";
import type { PortalStack } from "./context.ts";

export { until } from "../sip-node/wait.ts";

/** The stack of this run (see global-setup.ts). */
export const portal: PortalStack = inject("portal");

// Code passed to page.evaluate runs in the browser; this Node program has no DOM types.
declare const window: Record<string, unknown>;
declare const document: any;

const CHROMIUM = process.env.CHROMIUM_PATH ?? "/usr/bin/chromium";
export const RESULTS = new URL("../../test-results/portal/", import.meta.url).pathname;
const AXE = readFileSync(createRequire(import.meta.url).resolve("axe-core/axe.min.js"), "utf8");
const SIPP_MEDIA = "/usr/share/sip-tester";
const unique = () => `${Date.now().toString(36)}${Math.random().toString(36).slice(2, 8)}`;

// ---------------------------------------------------------------------------------------------
// Accounts

export type Person = { email: string; password: string };

export type RequestInit = { method?: string; body?: unknown; headers?: Record<string, string> };

export type Account = Person & {
  /** The customer (account) id. */
  id: string;
  token: string;
  /**
   * The API as this person: `path` under /api ("/calls", "/customer/users"; a path starting with
   * /api/ or /dev/ is taken as it is). A JSON body sent as JSON; answers the parsed body, or throws
   * with the status and detail on anything but 2xx.
   */
  api<T = any>(path: string, init?: RequestInit): Promise<T>;
  /** The same without throwing: the status and the parsed body (null when empty). */
  request<T = any>(path: string, init?: RequestInit): Promise<{ status: number; body: T }>;
};

export type Owner = Account & { role: "owner" };
export type Member = Person & { id: string; role: "member"; owner: Owner; temporaryPassword: string };

const url = (path: string) => `${portal.api}${/^\/(api|dev)\//.test(path) ? path : `/api${path}`}`;

/** One request from Node to the stack (127.0.0.1); `token` as a bearer credential. */
export async function request<T = any>(path: string, init: RequestInit & { token?: string } = {}): Promise<{ status: number; body: T }> {
  const res = await fetch(url(path), {
    method: init.method ?? (init.body === undefined ? "GET" : "POST"),
    headers: {
      ...(init.body === undefined ? {} : { "content-type": "application/json" }),
      ...(init.token ? { authorization: `Bearer ${init.token}` } : {}),
      ...init.headers,
    },
    body: init.body === undefined ? undefined : JSON.stringify(init.body),
  });
  const text = await res.text();
  let body: any = null;
  try {
    body = text ? JSON.parse(text) : null;
  } catch {
    body = text;
  }
  return { status: res.status, body };
}

function accountOf(person: Person, id: string, token: string): Account {
  const account: Account = {
    ...person,
    id,
    token,
    request: (path, init = {}) => request(path, { ...init, token: account.token }),
    async api(path, init = {}) {
      let res = await account.request(path, init);
      // Access tokens last 15 minutes: past that (or after "sign out everywhere"), sign in again.
      if (res.status === 401 && !path.startsWith("/auth/login")) {
        const login = await request("/auth/login", { body: { email: person.email, password: person.password } });
        if (login.status === 200 && login.body.access_token) {
          account.token = login.body.access_token;
          res = await account.request(path, init);
        }
      }
      if (res.status < 200 || res.status > 299) {
        const detail = typeof res.body === "object" && res.body ? (res.body.detail ?? JSON.stringify(res.body)) : res.body;
        throw new Error(`${init.method ?? (init.body === undefined ? "GET" : "POST")} ${path}: ${res.status} ${detail}`);
      }
      return res.body;
    },
  };
  return account;
}

/** A new account through POST /auth/signup (Terms accepted); its e-mail is unique to the run. */
export async function newOwner(options: { company?: string; name?: string; email?: string } = {}): Promise<Owner> {
  const person = { email: options.email ?? `owner-${unique()}@portal.test`, password: `owner password ${unique()}` };
  const signup = await request("/auth/signup", {
    body: { ...person, company: options.company ?? "Portal Test Carrier", full_name: options.name ?? null, accept_terms: true },
  });
  if (signup.status !== 201) throw new Error(`signup: ${signup.status} ${JSON.stringify(signup.body)}`);
  return { ...accountOf(person, signup.body.customer.id, signup.body.access_token), role: "owner" };
}

/** The temporary password of the newest invitation mail to `email` in the local outbox (GET /dev/mail.json). */
export function temporaryPasswordOf(email: string): Promise<string> {
  return until(
    `the invitation mail to ${email}`,
    async () => {
      const mail = await request(`/dev/mail.json?to=${encodeURIComponent(email)}&limit=5`);
      for (const message of (mail.body?.messages ?? []) as { text: string }[]) {
        const found = /temporary password (\S+)/.exec(message.text)?.[1];
        if (found) return found;
      }
      return null;
    },
    15_000,
    100,
  );
}

/**
 * A member the owner invites (POST /customer/users), with the temporary password of the
 * invitation mail as the local outbox (GET /dev/mail.json) keeps it: their first sign-in must
 * choose a new one.
 */
export async function inviteMember(owner: Owner, options: { name?: string; email?: string } = {}): Promise<Member> {
  const email = options.email ?? `member-${unique()}@portal.test`;
  const invited = await owner.api("/customer/users", { body: { email, name: options.name ?? null } });
  const temporaryPassword = await temporaryPasswordOf(email);
  return { email, password: temporaryPassword, temporaryPassword, id: invited.user.id, role: "member", owner };
}

// ---------------------------------------------------------------------------------------------
// Trunks and calls

export type Trunk = {
  /** The account's own loopback source address (127.0.x.y), whitelisted as a /32. */
  src: string;
  /** The UDP port on 127.0.0.1 where a sipp destination answers this account's calls (one call at a time). */
  port: number;
  destination: any;
  ip: any;
};

export type WithTrunk<A extends Account = Account> = A & { trunk: Trunk };

/**
 * A loopback source address no other account of the run has: claimed by creating a file named
 * after it (atomic across the test files' processes), since a whitelisted range belongs to one
 * account only.
 */
export function claimSource(): string {
  for (let n = 0; n < 250 * 200; n++) {
    const address = `127.0.${1 + Math.floor(n / 250)}.${1 + (n % 250)}`;
    try {
      closeSync(openSync(join(portal.sourcesDir, address), "wx"));
      return address;
    } catch {
      // claimed by another account
    }
  }
  throw new Error("no loopback source address left");
}

/**
 * The account's trunk: a default destination at a sipp UAS on 127.0.0.1 and its own loopback
 * source whitelisted; answers once the SIP node has the whitelist (it answers an OPTIONS from it).
 */
export async function withTrunk<A extends Account>(account: A): Promise<WithTrunk<A>> {
  const src = claimSource();
  const port = await freeUdpPort();
  const destination = await account.api("/customer/destinations", {
    body: { host: "127.0.0.1", port, is_default: true, label: "sipp destination" },
  });
  const ip = await account.api("/customer/ips", { body: { cidr: `${src}/32`, label: "sipp caller" } });
  await answersFrom(portal.sipPort, src, 20_000);
  return Object.assign(account, { trunk: { src, port, destination, ip } });
}

export type CallScenario =
  /** Answered: both sides send RTP (PCMA) for `seconds`, the caller presses 1 and hangs up: a recording. */
  | "answered"
  /** The destination is busy (486): a failed call without media. */
  | "busy";

export type PlaceCallOptions = {
  /** How long an answered call talks (default 4). */
  seconds?: number;
  /** The number dialed (default 14155550123). The caller is 14155550100 (the scenarios' From). */
  dialed?: string;
  /** pcaps of PCMA RTP each side plays (default: the speech sipp ships). */
  callerAudio?: string;
  calleeAudio?: string;
  /** Wait for the analysis pipeline too (analysis_status done or failed), not only the call's end. */
  analysed?: boolean;
};

const sippPeer = (): Stack => ({ node: { port: portal.sipPort } }) as Stack;

/**
 * A real call through the stack's SIP node from the account's trunk (withTrunk first), placed by
 * sipp and answered (or refused) by sipp. Answers the call as GET /calls/{id} has it once it has
 * ended (and, with `analysed`, once the pipeline is done with it).
 */
export async function placeCall(account: WithTrunk, scenario: CallScenario = "answered", options: PlaceCallOptions = {}): Promise<any> {
  const seen = new Set(((await account.api("/calls?limit=500")).items as { id: string }[]).map((c) => c.id));
  const dialed = options.dialed ?? "14155550123";
  if (scenario === "answered") {
    const callee = uas("uas-media.xml", account.trunk.port, false, { AUDIO: options.calleeAudio ?? `${SIPP_MEDIA}/g711a.pcap` });
    await callee.listening;
    const caller = await uac(sippPeer(), account.trunk.src, "uac-media.xml", dialed, {
      AUDIO: options.callerAudio ?? `${SIPP_MEDIA}/g711a.pcap`,
      AUDIO_MS: String((options.seconds ?? 4) * 1000),
      DTMF: `${SIPP_MEDIA}/dtmf_2833_1.pcap`,
    });
    if (caller.code !== 0) throw new Error(`the caller's sipp failed:\n${caller.output}`);
    const answered = await callee;
    if (answered.code !== 0) throw new Error(`the destination's sipp failed:\n${answered.output}`);
  } else {
    const callee = uas("uas-busy.xml", account.trunk.port);
    await callee.listening;
    const caller = await uac(sippPeer(), account.trunk.src, "uac-rejected.xml", dialed, { CODE: "486", ANI: "14155550100" });
    if (caller.code !== 0) throw new Error(`the caller's sipp failed:\n${caller.output}`);
    await callee;
  }
  const ended = await until(
    "the call's end in GET /calls",
    async () => {
      const items = (await account.api("/calls?limit=500")).items as any[];
      const call = items.find((c) => !seen.has(c.id));
      return call && call.status !== "ringing" && call.status !== "active" ? call : null;
    },
    20_000,
    200,
  );
  if (!options.analysed) return account.api(`/calls/${ended.id}`);
  return analysedCall(account, ended.id);
}

/** The call once the analysis pipeline is done with it (transcription on a loaded machine takes a while). */
export function analysedCall(account: Account, callId: string, timeoutMs = 150_000): Promise<any> {
  return until(
    `the verdict of call ${callId}`,
    async () => {
      const call = await account.api(`/calls/${callId}`);
      return call.analysis_status === "done" || call.analysis_status === "failed" ? call : null;
    },
    timeoutMs,
    500,
  );
}

let speech: { dir: string; scam?: ReturnType<typeof speechPcap>; hello?: ReturnType<typeof speechPcap> } | undefined;

/**
 * A spoken bank-fraud scam (test/sip-node/call-scripts/scam-bank.txt, spoken by espeak-ng) through
 * the trunk, answered by "Hello? Yes, speaking.", transcribed by the stack's offline transcriber and
 * analysed: answers the call with its verdict (block or review as a rule; the offline recogniser
 * hears synthetic telephone speech with errors). Needs `portal.transcription`.
 */
export async function scriptedScamCall(account: WithTrunk): Promise<any> {
  if (!portal.transcription) throw new Error("the stack runs no transcriber: check portal.transcription first");
  speech ??= { dir: mkdtempSync(join(tmpdir(), "portal-speech-")) };
  speech.scam ??= speechPcap(speech.dir, "scam-bank", callScript("scam-bank"));
  speech.hello ??= speechPcap(speech.dir, "callee-hello", callScript("callee-hello"));
  return placeCall(account, "answered", {
    callerAudio: speech.scam.path,
    calleeAudio: speech.hello.path,
    // sipp paces its pcap a little late: two seconds to spare, as speech-pcap.ts explains.
    seconds: (speech.scam.ms + 2_000) / 1000,
    analysed: true,
  });
}

// ---------------------------------------------------------------------------------------------
// The browser

let browser: Promise<Browser> | undefined;
afterAll(async () => {
  if (browser) await (await browser).close();
});

export type PortalBrowser = {
  context: BrowserContext;
  page: Page;
  /** Console errors, uncaught page errors and CSP violations so far (the test fails unless empty at its end). */
  problems: string[];
  /** Lets the test expect a console error matching `pattern` (e.g. a 4xx the page shows as it should). */
  allow(pattern: RegExp): void;
};

/** A failed fetch the page handles itself: the browser logs every 4xx as a console error. */
const EXPECTED_API_REFUSAL = /^Failed to load resource: the server responded with a status of 4\d\d/;

/**
 * A chromium context at 1440x900 on the stack's portal (page.goto("/app") works), closed when the
 * test ends; every console error, uncaught error and Content-Security-Policy violation of its pages
 * is collected and fails the test at its end. 4xx answers of /api/* are not counted (a wrong
 * password's 401 is a page working as it should); everything else is, unless `allow`ed. A failed
 * test's pages are saved as test-results/portal/failed-<test>-<n>.png.
 */
export async function browserFor(test: TestContext): Promise<PortalBrowser> {
  browser ??= chromium.launch({ executablePath: CHROMIUM, args: ["--no-sandbox"] });
  const context = await (await browser).newContext({ viewport: { width: 1440, height: 900 }, baseURL: portal.base });
  context.setDefaultTimeout(20_000);
  const problems: string[] = [];
  const allowed: RegExp[] = [];
  // The event reaches the page's own world before any of its scripts: no CSP applies to an init script.
  await context.addInitScript(() => {
    document.addEventListener("securitypolicyviolation", (e: any) =>
      console.error(`CSP violation: ${e.violatedDirective} blocked ${e.blockedURI || "inline"} (${e.sourceFile}:${e.lineNumber})`),
    );
  });
  context.on("console", (message) => {
    const text = message.text();
    const at = message.location().url;
    if (message.type() !== "error" && !/Content Security Policy|Refused to/i.test(text)) return;
    // A 4xx of /api the page handles, or the browser's own look for /favicon.ico.
    if (EXPECTED_API_REFUSAL.test(text) && /^\/(api\/|favicon\.ico$)/.test(new URL(at, portal.base).pathname)) return;
    if (allowed.some((pattern) => pattern.test(text))) return;
    problems.push(`console ${message.type()}: ${text}${at ? ` (${at})` : ""}`);
  });
  context.on("weberror", (error) => problems.push(`page error: ${error.error().stack ?? error.error().message}`));
  const page = await context.newPage();
  test.onTestFinished(async () => {
    // A failed test leaves its pages as they were: test-results/portal/failed-<test>-<n>.png.
    if (test.task.result?.state === "fail") {
      mkdirSync(RESULTS, { recursive: true });
      const name = test.task.name.replace(/[^a-z0-9]+/gi, "-").slice(0, 80);
      for (const [n, open] of context.pages().entries()) {
        await open.screenshot({ path: join(RESULTS, `failed-${name}-${n + 1}.png`), fullPage: true }).catch(() => undefined);
      }
    }
    await context.close();
    expect(problems, "console errors or CSP violations in the browser").toEqual([]);
  });
  return { context, page, problems, allow: (pattern) => allowed.push(pattern) };
}

/** Opens a portal address ("/app", "/app/calls") and waits for the first page (a heading) to show. */
export async function open(page: Page, path: string): Promise<void> {
  await page.goto(path);
  await page.locator("h1").first().waitFor();
}

/**
 * Fills the sign-in form (opening /app first unless it shows) and submits it; waits for nothing
 * else: what follows (the dashboard, the passkey step, the forced change, an error) is the test's.
 */
export async function submitSignIn(page: Page, person: Person): Promise<void> {
  const heading = page.getByRole("heading", { level: 1, name: "Sign in to Call Shield" });
  if (!(await heading.isVisible())) await open(page, "/app");
  await heading.waitFor();
  await page.getByLabel("E-mail").fill(person.email);
  await page.getByLabel("Password", { exact: true }).fill(person.password);
  await page.getByRole("button", { name: "Sign in", exact: true }).click();
}

/** Signs in through the form and waits until the portal's header shows who is signed in. */
export async function signIn(page: Page, person: Person): Promise<void> {
  await submitSignIn(page, person);
  await signedIn(page, person);
}

/** Waits until the header shows `person` signed in. */
export async function signedIn(page: Page, person: Person): Promise<void> {
  await page.locator("header.top .who", { hasText: person.email }).waitFor();
}

/** Waits until a navigation (the portal's or Setup's) marks `label` ("Dashboard", "Trunk") as the current page. */
export async function onPage(page: Page, label: string): Promise<void> {
  await page.locator('header.top nav a[aria-current="page"]', { hasText: label }).waitFor();
  await page.locator("main h1").first().waitFor();
}

/** Signs out with the header's button and waits for the sign-in form. */
export async function signOut(page: Page): Promise<void> {
  await page.locator("header.top").getByRole("button", { name: "Sign out" }).click();
  await page.getByRole("heading", { level: 1, name: "Sign in to Call Shield" }).waitFor();
}

/**
 * A WebAuthn authenticator built into this page's browser (CDP): a platform passkey with user
 * verification, which answers create() and get() at once. Credentials live as long as the page.
 */
export async function virtualAuthenticator(page: Page): Promise<{ cdp: CDPSession; authenticatorId: string }> {
  const cdp = await page.context().newCDPSession(page);
  await cdp.send("WebAuthn.enable");
  const { authenticatorId } = await cdp.send("WebAuthn.addVirtualAuthenticator", {
    options: { protocol: "ctap2", transport: "internal", hasResidentKey: true, hasUserVerification: true, isUserVerified: true },
  });
  return { cdp, authenticatorId };
}

/** The portal's loading indicator (components/ui.tsx Loading). */
const LOADING = 'p.muted[role="status"][aria-live="polite"]';

/** Waits until the page shows no loading indicator (its data is in): before a check or a screenshot. */
export async function settled(page: Page): Promise<void> {
  await page.locator(LOADING).first().waitFor({ state: "detached" });
}

type AxeViolation = { id: string; impact: string | null; help: string; nodes: { target: unknown[]; failureSummary?: string }[] };

/**
 * axe-core over the page once it has loaded (settled); fails on any violation of impact serious
 * or critical.
 * The script goes in through DevTools evaluation, which the page's CSP (script-src 'self') does
 * not govern, so the page is checked under its real policy.
 */
export async function checkA11y(page: Page, name: string): Promise<void> {
  await settled(page);
  if (!(await page.evaluate(() => "axe" in window))) await page.evaluate(AXE);
  const violations = await page.evaluate(async () => {
    const axe = window.axe as { run(context: unknown, options: object): Promise<{ violations: AxeViolation[] }> };
    // No CSSOM preload: for a shadow root's styles (wavesurfer's) axe writes <style> copies, which
    // the page's CSP blocks and reports as the page's own violation.
    const result = await axe.run(document, { resultTypes: ["violations"], preload: false });
    return result.violations.map((v) => ({
      id: v.id,
      impact: v.impact,
      help: v.help,
      nodes: v.nodes.map((n) => ({ target: n.target, failureSummary: n.failureSummary })),
    }));
  });
  const serious = violations.filter((v) => v.impact === "serious" || v.impact === "critical");
  const report = serious.map(
    (v) => `${v.impact} ${v.id}: ${v.help}\n${v.nodes.map((n) => `    ${JSON.stringify(n.target)}: ${n.failureSummary ?? ""}`).join("\n")}`,
  );
  if (report.length) throw new Error(`axe-core on ${name} (${page.url()}): serious or critical violations\n${report.join("\n")}`);
}

/**
 * Saves test-results/portal/<name>-1440.png and <name>-390.png (full page, once loaded), and checks the page
 * is readable 390 px wide: nothing but a .table-wrap (or another element that scrolls itself)
 * makes the page scroll sideways. The viewport is back at 1440x900 afterwards.
 */
export async function screenshots(page: Page, name: string): Promise<void> {
  mkdirSync(RESULTS, { recursive: true });
  await settled(page);
  await page.setViewportSize({ width: 1440, height: 900 });
  await page.screenshot({ path: join(RESULTS, `${name}-1440.png`), fullPage: true });
  await page.setViewportSize({ width: 390, height: 844 });
  await page.screenshot({ path: join(RESULTS, `${name}-390.png`), fullPage: true });
  const overflow = await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
  await page.setViewportSize({ width: 1440, height: 900 });
  expect(overflow, `${name} at 390 px wide scrolls sideways by ${overflow} px (wrap wide content in .table-wrap)`).toBeLessThanOrEqual(0);
}
