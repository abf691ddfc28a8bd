import tseslint from "typescript-eslint";

// Import boundaries (see docs/decisions.md, "How the code is organised"): each entry names the
// files it governs and what they may not import, with the reason shown on a violation.
const boundary = (files, patterns) => ({
  files,
  rules: { "no-restricted-imports": ["error", { patterns }] },
});

const DATABASE = {
  group: ["drizzle-orm", "drizzle-orm/*", "**/schema/*", "!**/schema/enums.ts", "!**/schema/node-api.ts", "!**/schema/cidr.ts"],
  message: "Only services (worker/services/) touch the database: call a service verb.",
};
const FRONT_DOORS = {
  group: ["**/api/*", "**/api/**", "**/mcp/*", "**/mcp/**", "**/pages/*", "**/pages/**", "**/internal/*", "**/internal/**"],
  message: "Services sit below every front door (HTTP, MCP, pages, the node API) and import none of them.",
};
const HONO = { group: ["hono", "hono/*"], message: "Services do not speak HTTP: take plain input, throw domain errors." };

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
  boundary(
    ["worker/api/**/*.ts"],
    [
      DATABASE,
      {
        group: ["**/internal/*", "**/internal/**", "**/mcp/*", "**/mcp/**", "**/pages/*", "**/pages/**"],
        message: "api/ is one front door; it does not reach into another.",
      },
    ],
  ),
  boundary(
    ["worker/pages/**/*.ts"],
    [
      DATABASE,
      {
        group: ["**/api/*", "**/api/**", "**/internal/*", "**/internal/**", "**/mcp/*", "**/mcp/**"],
        message: "pages/ is one front door; it does not reach into another.",
      },
    ],
  ),
  boundary(
    ["worker/mcp/**/*.ts"],
    [DATABASE, { group: ["**/api/*", "**/api/**", "**/internal/*"], message: "mcp/ is one front door; it does not reach into another." }],
  ),
  boundary(["worker/services/**/*.ts", "worker/resources/**/*.ts"], [FRONT_DOORS, HONO]),
  boundary(
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
  boundary(
    ["sip-node/**/*.ts"],
    [{ group: ["**/worker/*", "**/worker/**"], message: "The SIP node shares only schema/ (node-api.ts, cidr.ts) with the Worker." }],
  ),
);
