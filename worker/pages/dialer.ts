// The web dialer: a page that places calls from the browser through the SIP node. A fixed HTML
// shell; its script (public/dialer-assets/dialer.js) signs in (or takes the portal's access token
// from the address's fragment), asks POST /api/customer/dialer/session for a single-use token per
// call, and calls with JsSIP (bundled into public/dialer-assets/vendor/ by scripts/vendor-assets.mjs,
// our own asset, never a CDN) over the node's WebSocket listener. The Content-Security-Policy
// allows our own origin and that listener only.
import { Hono } from "hono";
import { loadConfig, type Bindings } from "../env.ts";

type PagesEnv = { Bindings: Bindings };

/** Script and style from our origin only; the API on our origin; the SIP WebSocket at its configured origin. */
export function dialerPageCsp(websocketUrl: string): string {
  const ws = new URL(websocketUrl);
  return [
    "default-src 'none'",
    "script-src 'self'",
    "style-src 'self'",
    `connect-src 'self' ${ws.protocol}//${ws.host}`,
    "media-src 'self' blob:",
    "img-src 'self'",
    "base-uri 'none'",
    "form-action 'none'",
    "frame-ancestors 'none'",
  ].join("; ");
}

const PAGE = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="robots" content="noindex, nofollow">
<title>Web dialer</title>
<link rel="stylesheet" href="/dialer-assets/dialer.css">
<script src="/dialer-assets/vendor/jssip.js" defer></script>
<script src="/dialer-assets/dialer.js" defer></script>
</head>
<body>
<main>
<header><h1>Web dialer</h1><p id="who" hidden></p></header>
<p id="status" role="status" aria-live="polite">Loading…</p>
<form id="sign-in" hidden>
<label for="email">E-mail</label>
<input id="email" name="email" type="email" autocomplete="username" required>
<label for="password">Password</label>
<input id="password" name="password" type="password" autocomplete="current-password" required>
<button type="submit">Sign in</button>
<p id="sign-in-error" class="error" role="alert" hidden></p>
</form>
<section id="dialer" hidden>
<div id="caller-id-row" hidden>
<label for="caller-id">Caller ID</label>
<select id="caller-id"><option value="">Anonymous</option></select>
</div>
<label for="number">Number</label>
<input id="number" name="number" type="tel" inputmode="tel" autocomplete="off" placeholder="+1 415 555 0123">
<div id="pad" class="pad">
<button type="button" data-key="1">1</button><button type="button" data-key="2">2</button><button type="button" data-key="3">3</button>
<button type="button" data-key="4">4</button><button type="button" data-key="5">5</button><button type="button" data-key="6">6</button>
<button type="button" data-key="7">7</button><button type="button" data-key="8">8</button><button type="button" data-key="9">9</button>
<button type="button" data-key="*">*</button><button type="button" data-key="0">0</button><button type="button" data-key="#">#</button>
</div>
<div class="row">
<button type="button" id="call" class="call">Call</button>
<button type="button" id="hangup" class="hangup" disabled>Hang up</button>
<button type="button" id="mute" disabled aria-pressed="false">Mute</button>
</div>
<p class="facts"><span id="timer">00:00</span> <span id="call-id-label" hidden>Call <a id="call-id" href="#"></a></span></p>
<audio id="remote" autoplay></audio>
</section>
<section id="record" hidden>
<h2>Call record</h2>
<dl id="record-facts"></dl>
</section>
<footer><p>Calls from this page are placed, recorded and charged as calls of your account.</p></footer>
</main>
</body>
</html>
`;

export function newDialerPages(): Hono<PagesEnv> {
  const pages = new Hono<PagesEnv>();
  pages.get("/", (c) =>
    c.html(PAGE, 200, {
      "Content-Security-Policy": dialerPageCsp(loadConfig(c.env).DIALER_WS_URL),
      "Cache-Control": "no-store",
      "Referrer-Policy": "no-referrer",
      "X-Content-Type-Options": "nosniff",
      "X-Frame-Options": "DENY",
      // The page asks for the microphone, and nothing else may.
      "Permissions-Policy": "microphone=(self), camera=()",
    }),
  );
  return pages;
}
