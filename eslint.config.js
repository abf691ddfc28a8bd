import path from "node:path";
import { fileURLToPath } from "node:url";
import tseslint from "typescript-eslint";

// Import boundaries (see docs/decisions/code-layout.md#what-the-linter-and-the-cycle-check-keep-apart), in two kinds:
//   - packages and the tables (no-restricted-imports): drizzle-orm and schema/'s tables only in
//     services, Hono nowhere below the front doors;
//   - folders (layers/imports, below): what a folder may not import, checked on the path an
//     import resolves to, so that worker/oauth/ (a front door) and worker/services/oauth/ (its
//     services) are told apart however deep the importing file sits.
// Each entry names the files it governs and, for what they may not import, the reason shown on a
// violation. test/contract/boundaries.test.ts proves each with a file that breaks it.

const ROOT = path.dirname(fileURLToPath(import.meta.url));

const DATABASE = {
  group: [
    "drizzle-orm",
    "drizzle-orm/*",
    "**/schema/*",
    "!**/schema/enums.ts",
    "!**/schema/node-api.ts",
    "!**/schema/cidr.ts",
    "!**/schema/numbers.ts",
    "!**/schema/wav.ts",
  ],
  message: "Only services (worker/services/) touch the database: call a service verb.",
};
const HONO = { group: ["hono", "hono/*"], message: "Services do not speak HTTP: take plain input, throw domain errors." };

const packages = (files, patterns) => ({ files, rules: { "no-restricted-imports": ["error", { patterns }] } });

/** The front doors: each receives requests of one kind and calls services. */
const FRONT_DOORS = ["api", "mcp", "pages", "internal", "oauth", "exchange"];
/** The composition root and the Worker's entry points: they build the Services (composition.ts) and hand them on. */
const ENTRY_POINTS = ["worker/app.ts", "worker/index.ts", "worker/composition.ts", "worker/queues", "worker/cron"];

const frontDoorsBut = (own) => FRONT_DOORS.filter((name) => name !== own).map((name) => `worker/${name}`);

/** A front door imports services, not another front door, nor the entry points that mount it. */
const frontDoor = (name) => ({
  files: [`worker/${name}/**/*.ts`],
  forbid: [
    { folders: frontDoorsBut(name), message: `${name}/ is one front door; it does not reach into another.` },
    { folders: ENTRY_POINTS, message: "A front door gets its Services on the context; only the entry points build them (composition.ts)." },
  ],
  patterns: [DATABASE],
});

/** layers/imports: refuses an import whose resolved path lies in one of the folders (or is one of the files) forbidden. */
const importsRule = {
  meta: { type: "problem", schema: [{ type: "array" }] },
  create(context) {
    const forbid = context.options[0] ?? [];
    const dir = path.dirname(context.filename);
    const inside = (target, folder) => target === folder || target.startsWith(`${folder}/`) || target === `${folder}.ts`;
    const check = (node, source) => {
      if (typeof source !== "string" || !source.startsWith(".")) return;
      const target = path.relative(ROOT, path.resolve(dir, source)).split(path.sep).join("/");
      const rule = forbid.find(
        (f) => f.folders.some((folder) => inside(target, folder)) && !(f.except ?? []).some((e) => inside(target, e)),
      );
      if (rule) context.report({ node, message: rule.message });
    };
    return {
      ImportDeclaration: (node) => check(node, node.source.value),
      ExportAllDeclaration: (node) => check(node, node.source.value),
      ExportNamedDeclaration: (node) => node.source && check(node, node.source.value),
      ImportExpression: (node) => node.source.type === "Literal" && check(node, node.source.value),
    };
  },
};

/** One boundary: `forbid` for layers/imports, `patterns` for no-restricted-imports. */
const boundary = ({ files, forbid = [], patterns = [] }) => ({
  files,
  plugins: { layers: { rules: { imports: importsRule } } },
  rules: {
    "layers/imports": ["error", forbid],
    ...(patterns.length > 0 && { "no-restricted-imports": ["error", { patterns }] }),
  },
});

const ALL_FRONT_DOORS = FRONT_DOORS.map((name) => `worker/${name}`);

export default tseslint.config(
  { ignores: ["node_modules/", ".wrangler/", "public/", "schema/migrations/", "coverage/"] },
  ...tseslint.configs.recommended,
  {
    rules: {
      "@typescript-eslint/no-unused-vars": ["error", { argsIgnorePattern: "^_", varsIgnorePattern: "^_" }],
      "@typescript-eslint/consistent-type-imports": "error",
      "no-console": "off",
    },
  },
  {
    // Tests read JSON replies loosely; the assertions are the types.
    files: ["test/**/*.ts"],
    rules: { "@typescript-eslint/no-explicit-any": "off" },
  },
  ...FRONT_DOORS.map((name) => boundary(frontDoor(name))),
  boundary({
    // What every front door shares (the context type, the client's address): below them, above the services.
    files: ["worker/http/**/*.ts"],
    forbid: [
      { folders: ALL_FRONT_DOORS, message: "http/ is shared by the front doors and imports none of them." },
      { folders: ENTRY_POINTS, message: "http/ sits below the entry points and imports none of them." },
    ],
    patterns: [DATABASE],
  }),
  boundary({
    files: ["worker/queues/**/*.ts", "worker/cron/**/*.ts"],
    forbid: [
      { folders: ALL_FRONT_DOORS, message: "Queue consumers and cron jobs call services, not a front door." },
      {
        folders: ["worker/lib/db.ts"],
        message: "Entry points take the database with the Services (composition.ts), never build their own: call a service verb.",
      },
    ],
    patterns: [DATABASE],
  }),
  boundary({
    files: ["worker/services/**/*.ts", "worker/resources/**/*.ts"],
    forbid: [
      {
        folders: [...ALL_FRONT_DOORS, "worker/http"],
        message: "Services sit below every front door (HTTP, MCP, pages, OAuth, the exchange, the node API) and import none of them.",
      },
      {
        folders: ENTRY_POINTS,
        message: "Services never import the composition root or an entry point: they get their Services passed in.",
      },
    ],
    patterns: [HONO],
  }),
  boundary({
    files: ["worker/providers/**/*.ts"],
    forbid: [
      {
        folders: ["worker/services", "worker/resources", "worker/http", ...ALL_FRONT_DOORS, ...ENTRY_POINTS],
        message:
          "Providers are the outside edges (AI, mail, payments, HTTP) the services call: they import no service, front door or entry point.",
      },
    ],
    patterns: [DATABASE],
  }),
  boundary({
    files: ["worker/lib/**/*.ts"],
    forbid: [
      {
        folders: ["worker"],
        except: ["worker/lib"],
        message: "lib/ is the bottom of the Worker: helpers that import nothing else of worker/ (only schema/ and packages).",
      },
    ],
  }),
  boundary({
    files: ["durable-objects/**/*.ts"],
    forbid: [
      {
        folders: ["worker"],
        message: "Durable Objects share only schema/ with the Worker (the wire and row types, cidr.ts, numbers.ts): nothing of worker/.",
      },
    ],
  }),
  packages(
    ["portal/src/**/*.{ts,tsx}"],
    [
      {
        group: [
          "**/worker/**",
          "**/schema/**",
          "**/durable-objects/**",
          "**/sip-node/**",
          "hono",
          "hono/*",
          "drizzle-orm",
          "drizzle-orm/*",
        ],
        message: "The portal uses only the public API under /api, through its typed client (portal/src/api/client.ts).",
      },
    ],
  ),
  packages(
    ["sip-node/**/*.ts"],
    [{ group: ["**/worker/*", "**/worker/**"], message: "The SIP node shares only schema/ (node-api.ts, cidr.ts) with the Worker." }],
  ),
);
