// Copies the API explorer's static files from swagger-ui-dist into public/, where the
// Worker's static assets serve them at /api/docs/assets. Runs after every npm install.
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
