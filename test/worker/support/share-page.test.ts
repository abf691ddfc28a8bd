// The share page's HTML as the Worker serves it: a fixed shell under a strict CSP that allows
// only our own origin, kept out of caches, sending no Referer, and carrying nothing of the link.
// test/browser/share-page.test.ts drives the page itself in Chromium.
import { describe, expect, it } from "vitest";
import { expectStatus, request } from "../fixtures/client.ts";

describe("GET /share/{token}", () => {
  it("serves the page under a CSP of our own origin only, with no inline script or style", async () => {
    const token = "q2xV0m3lV8n1c8o0Jv1tq5b0Zp4ZyH6m2u0R3s9cW1E";
    const res = await request("GET", `/share/${token}`);
    expectStatus(res, 200);
    expect(res.headers.get("content-type")).toMatch(/^text\/html/);
    expect(res.headers.get("content-security-policy")).toBe(
      "default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self'; media-src 'self'; img-src 'self'; " +
        "base-uri 'none'; form-action 'none'; frame-ancestors 'none'",
    );
    expect(res.headers.get("cache-control")).toBe("no-store");
    expect(res.headers.get("referrer-policy")).toBe("no-referrer");
    expect(res.headers.get("x-frame-options")).toBe("DENY");
    const html = res.body as string;
    expect(html).not.toContain(token);
    expect(html).toContain('<script src="/share-assets/share.js" defer></script>');
    expect(html).toContain('<link rel="stylesheet" href="/share-assets/share.css">');
    // Every script has a src and is ours; no inline style or handler attributes; nothing from elsewhere.
    expect([...html.matchAll(/<script(?![^>]*\ssrc="\/share-assets\/)/g)]).toEqual([]);
    expect(html).not.toMatch(/<style|\sstyle="|\son[a-z]+="/i);
    expect(html).not.toMatch(/(src|href)="(https?:)?\/\//i);
  });
});
