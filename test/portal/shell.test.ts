// The portal's shell as the Worker serves it: every address under /app is the single-page app's
// HTML under the strict Content-Security-Policy (the browser routes), a missing asset is a 404 and
// not the shell, and the built scripts load in Chromium without a CSP violation.
import { randomUUID } from "node:crypto";
import { describe, expect, it } from "vitest";
import { browserFor, open, portal } from "./fixtures.ts";

// Code passed to page.evaluate runs in the browser; this Node program has no DOM types.
declare const document: { styleSheets: Iterable<{ href: string | null; cssRules: { length: number } }> };

const csp = (header: string | null) =>
  new Map(
    (header ?? "")
      .split(";")
      .map((d) => d.trim().split(/\s+/))
      .filter((d) => d[0])
      .map(([name, ...values]) => [name!, values]),
  );

describe("the portal's shell", () => {
  const id = randomUUID();
  it.each(["/app", "/app/", `/app/calls/${id}`, `/app/live/${id}`, `/app/test-calls/${id}/confirm`])(
    "serves %s as the app's HTML under the strict CSP",
    async (path) => {
      const res = await fetch(`${portal.api}${path}`);
      expect(res.status).toBe(200);
      expect(res.headers.get("content-type")).toMatch(/^text\/html/);
      const policy = csp(res.headers.get("content-security-policy"));
      expect(policy.get("default-src")).toEqual(["'none'"]);
      expect(policy.get("script-src")).toEqual(["'self'"]);
      expect(policy.get("connect-src")).toEqual(["'self'"]);
      expect(policy.get("frame-ancestors")).toEqual(["'none'"]);
      expect(policy.get("base-uri")).toEqual(["'none'"]);
      const styles = policy.get("style-src") ?? [];
      expect(styles[0]).toBe("'self'");
      expect(styles.slice(1)).toEqual([expect.stringMatching(/^'nonce-[A-Za-z0-9+/=]{16,}'$/)]);
      const html = await res.text();
      // The nonce the page reads for a library's <style> is the header's.
      const nonce = /<meta name="csp-nonce" content="([^"]+)">/.exec(html)?.[1];
      expect(styles[1]).toBe(`'nonce-${nonce}'`);
      // No inline script: every <script> loads a built asset.
      const scripts = [...html.matchAll(/<script\b([^>]*)>([\s\S]*?)<\/script>/g)];
      expect(scripts.length).toBeGreaterThan(0);
      for (const [, attributes, body] of scripts) {
        expect(attributes).toMatch(/\ssrc="\/app\/assets\/[^"]+\.js"/);
        expect(body!.trim()).toBe("");
      }
    },
  );

  it("answers 404 for an asset that is not there", async () => {
    const res = await fetch(`${portal.api}/app/assets/missing.js`);
    expect(res.status).toBe(404);
    expect(res.headers.get("content-type") ?? "").not.toMatch(/text\/html/);
  });

  it("loads its scripts and styles in Chromium without a CSP violation", async (test) => {
    const { page } = await browserFor(test);
    const assets: { url: string; status: number }[] = [];
    page.on("response", (res) => {
      if (new URL(res.url()).pathname.startsWith("/app/assets/")) assets.push({ url: res.url(), status: res.status() });
    });
    await open(page, "/app");
    await page.getByRole("heading", { level: 1, name: "Sign in to Call Shield" }).waitFor();
    expect(assets.some((a) => a.url.endsWith(".js"))).toBe(true);
    expect(assets.some((a) => a.url.endsWith(".css"))).toBe(true);
    expect(assets.filter((a) => a.status !== 200)).toEqual([]);
    // The stylesheet applies (one the CSP blocked would not be in the document's sheets).
    const rules = await page.evaluate(() =>
      [...document.styleSheets].filter((s) => s.href?.includes("/app/assets/")).reduce((n, s) => n + s.cssRules.length, 0),
    );
    expect(rules).toBeGreaterThan(10);
  });
});
