// Puts the browser libraries our pages use into public/, where the Worker's static assets serve
// them, after every npm install: the API explorer's files copied from swagger-ui-dist (served at
// /api/docs/assets), and JsSIP bundled with esbuild into one script for the web dialer (served at
// /dialer-assets/vendor/jssip.js). Nothing is loaded from a CDN.
import { copyFileSync, mkdirSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";

const require = createRequire(import.meta.url);
const source = dirname(require.resolve("swagger-ui-dist/package.json"));
const target = new URL("../public/api/docs/assets/", import.meta.url).pathname;

mkdirSync(target, { recursive: true });
for (const file of ["swagger-ui.css", "swagger-ui-bundle.js", "favicon-32x32.png"]) {
  copyFileSync(join(source, file), join(target, file));
}

// JsSIP ships CommonJS modules only: one browser script (window.JsSIP) with its dependencies.
// esbuild is a development dependency; an install without them (--omit=dev) leaves the dialer without its library.
let esbuild;
try {
  esbuild = await import("esbuild");
} catch {
  console.warn("vendor-assets: esbuild is not installed (an install without dev dependencies); the web dialer's JsSIP bundle is not built");
}
if (esbuild) {
  await esbuild.build({
    entryPoints: [require.resolve("jssip")],
    bundle: true,
    format: "iife",
    globalName: "JsSIP",
    platform: "browser",
    target: "es2020",
    minify: true,
    legalComments: "inline",
    logLevel: "warning",
    outfile: new URL("../public/dialer-assets/vendor/jssip.js", import.meta.url).pathname,
  });
}
