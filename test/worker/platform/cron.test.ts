// The Worker's scheduled entry: every tick runs the sweeps, which keep what is still live.
import { createExecutionContext, createScheduledController, env, waitOnExecutionContext } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import worker from "../../../worker/index.ts";

const spentIds = async () =>
  (await env.DB.prepare("SELECT jti FROM spent_tokens ORDER BY jti").all<{ jti: string }>()).results.map((r) => r.jti);

describe("scheduled()", () => {
  it("forgets spent step tokens past their expiry and keeps the others", async () => {
    const tick = Date.parse("2026-11-26T10:00:00Z");
    const insert = env.DB.prepare("INSERT INTO spent_tokens (jti, expires_at) VALUES (?, ?)");
    await env.DB.batch([insert.bind("cron-expired", "2026-11-26T09:59:59.000Z"), insert.bind("cron-live", "2026-11-26T10:05:00.000Z")]);
    const ctx = createExecutionContext();
    await worker.scheduled!(createScheduledController({ scheduledTime: tick, cron: "*/10 * * * *" }), env, ctx);
    await waitOnExecutionContext(ctx);
    const left = await spentIds();
    expect(left).toContain("cron-live");
    expect(left).not.toContain("cron-expired");
  });
});
