// Builds the portal into public/app/ (served by the Worker at /app): the typed client first, then
// Vite. Prints each file's compressed size and fails when the first page's JavaScript passes its
// budget (250 KB compressed: what a fraud analyst's browser loads before the first page shows).
import { spawnSync } from "node:child_process";
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { gzipSync } from "node:zlib";

const root = new URL("../..", import.meta.url).pathname;
const out = join(root, "public/app");
const BUDGET = 250 * 1024;

let vite;
try {
  vite = await import("vite");
} catch {
  console.warn("portal: vite is not installed (an install without dev dependencies); the portal is not built");
  process.exit(0);
}

const generate = spawnSync(process.execPath, [join(root, "portal/scripts/openapi.ts")], { stdio: "inherit" });
if (generate.status !== 0) process.exit(generate.status ?? 1);

await vite.build({ configFile: join(root, "portal/vite.config.ts"), logLevel: "warn" });

const gz = (file) => gzipSync(readFileSync(file)).length;
const assets = join(out, "assets");
const files = readdirSync(assets).map((name) => ({ name, size: statSync(join(assets, name)).size, gz: gz(join(assets, name)) }));
// The first page (the dashboard at /app) loads the entry, the dashboard's chunk and what each imports.
const manifest = JSON.parse(readFileSync(join(out, ".vite/manifest.json"), "utf8"));
const firstChunks = new Set();
const visit = (key) => {
  const chunk = manifest[key];
  if (!chunk || firstChunks.has(chunk.file)) return;
  firstChunks.add(chunk.file);
  for (const imported of chunk.imports ?? []) visit(imported);
};
visit("index.html");
visit("src/pages/dashboard/dashboard-page.tsx");
const firstGz = files.filter((f) => firstChunks.has(`assets/${f.name}`) && f.name.endsWith(".js")).reduce((sum, f) => sum + f.gz, 0);
const kb = (n) => `${(n / 1024).toFixed(1)} KB`;
console.log("portal: public/app/assets (size, gzip)");
for (const f of files.sort((a, b) => b.gz - a.gz))
  console.log(`  ${f.name.padEnd(40)} ${kb(f.size).padStart(10)} ${kb(f.gz).padStart(10)}`);
console.log(`portal: first page JavaScript ${kb(firstGz)} compressed (budget ${kb(BUDGET)})`);
if (firstGz > BUDGET) {
  console.error("portal: the first page's JavaScript is over its budget");
  process.exit(1);
}
