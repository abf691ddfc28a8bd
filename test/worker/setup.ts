import { applyD1Migrations, env } from "cloudflare:test";

// Every test file starts from a database with every migration applied (plans and AI tiers seeded).
await applyD1Migrations(env.DB, env.TEST_MIGRATIONS);
