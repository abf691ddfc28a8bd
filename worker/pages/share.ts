// The share page: what a share link's URL opens in a browser (often at a bank's or another
// carrier's fraud desk). A fixed HTML shell; its script (public/share-assets/share.js, our own
// static asset) asks for the password, unlocks through /api/public/shares/{token}/unlock and
// shows the verdict, red flags, call facts, transcript and recording. Nothing of the link or the
// call is written into the HTML, and the Content-Security-Policy allows only our own origin.
import { Hono } from "hono";

/** Script, style, API calls and the recording from our own origin only; no inline code, no frames. */
export const SHARE_PAGE_CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "connect-src 'self'",
  "media-src 'self'",
  "img-src 'self'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join("; ");

const PAGE_HEADERS = {
  "Content-Security-Policy": SHARE_PAGE_CSP,
  "Cache-Control": "no-store",
  "Referrer-Policy": "no-referrer",
  "X-Content-Type-Options": "nosniff",
  "X-Frame-Options": "DENY",
  "X-Robots-Tag": "noindex, nofollow",
};

const PAGE = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="robots" content="noindex, nofollow">
<title>Shared call</title>
<link rel="stylesheet" href="/share-assets/share.css">
<script src="/share-assets/share.js" defer></script>
</head>
<body>
<main>
<header>
<h1>Shared call</h1>
<p id="shared-by" hidden></p>
</header>
<p id="status" role="status" aria-live="polite">Loading…</p>
<form id="unlock" hidden>
<label for="password">Password</label>
<div class="row">
<input id="password" name="password" type="password" autocomplete="off" autocapitalize="characters" spellcheck="false" required>
<button type="submit">Open</button>
</div>
<p id="unlock-error" class="error" role="alert" hidden></p>
<p class="hint">The sender gave you the password separately from this link.</p>
</form>
<article id="call" hidden>
<section id="verdict">
<h2>Verdict</h2>
<p class="score"><span id="probability"></span><span class="unit">% fraud probability</span></p>
<p><span id="category" class="tag"></span> <span id="recommendation" class="tag"></span></p>
<p id="verdict-title" class="title"></p>
<p id="entity"></p>
<p id="summary"></p>
<p id="tcpa"></p>
</section>
<section id="no-verdict" hidden><h2>Verdict</h2><p>This call has not been analysed.</p></section>
<section id="flags-section" hidden>
<h2>Red flags</h2>
<ul id="red-flags"></ul>
</section>
<section>
<h2>Call</h2>
<dl id="facts"></dl>
</section>
<section id="recording-section" hidden>
<h2>Recording</h2>
<audio id="audio" controls preload="metadata"></audio>
</section>
<section id="transcript-section" hidden>
<h2>Transcript</h2>
<div id="transcript"></div>
</section>
</article>
<footer><p>Shared through Call Shield. This page is for the person the link was sent to; do not forward it.</p></footer>
</main>
</body>
</html>
`;

type PagesEnv = { Bindings: Record<string, unknown> };

export function newSharePages(): Hono<PagesEnv> {
  const pages = new Hono<PagesEnv>();
  pages.get("/:token", (c) => c.html(PAGE, 200, PAGE_HEADERS));
  return pages;
}
