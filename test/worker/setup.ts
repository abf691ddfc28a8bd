import { applyD1Migrations, env } from "cloudflare:test";
import { afterEach, vi } from "vitest";

// Every test file starts from a database with every migration applied (plans and AI tiers seeded).
await applyD1Migrations(env.DB, env.TEST_MIGRATIONS);

// A test that moved the clock (fixtures.nextSecond) leaves the next one the real clock.
afterEach(() => {
  vi.useRealTimers();
});
