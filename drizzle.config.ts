import { defineConfig } from "drizzle-kit";

// `npm run db:generate` writes a new migration from the schema; wrangler applies them
// (`wrangler d1 migrations apply DB --local`), and the Worker tests apply them too.
export default defineConfig({
  dialect: "sqlite",
  schema: "./schema/index.ts",
  out: "./schema/migrations",
});
