// The portal: every address under /app opens the single-page app's shell (public/app/index.html,
// built by portal/scripts/build.mjs), which routes in the browser. Its scripts and styles are static
// assets under /app/assets/. The shell carries a strict Content-Security-Policy like the share
// page's; the one exception, a per-response nonce for style elements, is for the waveform player,
// which renders in a shadow root with a <style> of its own (the page reads the nonce from a meta tag).
import { Hono } from "hono";
import type { Bindings } from "../env.ts";

type PortalEnv = { Bindings: Bindings };

export function portalCsp(nonce: string): string {
  return [
    "default-src 'none'",
    "script-src 'self'",
    `style-src 'self' 'nonce-${nonce}'`,
    "connect-src 'self'",
    "media-src 'self' blob:",
    "img-src 'self' data: blob:",
    "font-src 'self'",
    "manifest-src 'self'",
    "base-uri 'none'",
    "form-action 'self'",
    "frame-ancestors 'none'",
  ].join("; ");
}

const nonce = () => btoa(String.fromCharCode(...crypto.getRandomValues(new Uint8Array(16))));

export function newPortalPages(): Hono<PortalEnv> {
  const pages = new Hono<PortalEnv>();
  // A script or style that is not among the assets is missing, not a page.
  pages.get("/assets/*", (c) => c.json({ detail: "Not Found" }, 404));
  pages.get("*", async (c) => {
    const shell = c.env.ASSETS ? await c.env.ASSETS.fetch(new URL("/app/index.html", c.req.url)) : null;
    if (!shell?.ok) return c.text("The portal is not built: run npm ci (or node portal/scripts/build.mjs).", 503);
    const value = nonce();
    const page = new HTMLRewriter()
      .on("head", {
        element: (head) => {
          head.append(`<meta name="csp-nonce" content="${value}">`, { html: true });
        },
      })
      .transform(new Response(shell.body, { headers: { "Content-Type": "text/html; charset=utf-8" } }));
    const headers = new Headers(page.headers);
    headers.set("Content-Security-Policy", portalCsp(value));
    headers.set("Cache-Control", "no-store");
    headers.set("Referrer-Policy", "same-origin");
    headers.set("X-Content-Type-Options", "nosniff");
    headers.set("X-Frame-Options", "DENY");
    headers.set("Permissions-Policy", "microphone=(), camera=(), geolocation=()");
    return new Response(page.body, { status: 200, headers });
  });
  return pages;
}
