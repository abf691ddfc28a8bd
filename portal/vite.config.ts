// The portal's build: a single-page app under /app, written into the Worker's static assets.
import react from "@vitejs/plugin-react";
import { defineConfig } from "vite";

const here = new URL(".", import.meta.url).pathname;

export default defineConfig({
  root: here,
  base: "/app/",
  plugins: [react()],
  build: {
    outDir: new URL("../public/app", import.meta.url).pathname,
    emptyOutDir: true,
    target: "es2022",
    sourcemap: false,
    // The chunk graph, read by scripts/build.mjs to weigh what the first page loads.
    manifest: true,
    // The share page's rule: no inline script or style anywhere (the CSP forbids them).
    assetsInlineLimit: 0,
  },
});
