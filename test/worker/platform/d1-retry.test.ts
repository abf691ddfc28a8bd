// Issue 27 item 2: a transient D1 failure (SQLITE_BUSY while another process holds local D1, or
// the errors Cloudflare says to retry) is tried again in the D1 layer, with backoff and a bound,
// so a request answers as if nothing happened instead of 500.
import { env } from "cloudflare:test";
import { eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { spentTokens } from "../../../schema/identity.ts";
import { newApp } from "../../../worker/app.ts";
import { D1_RETRY, database, isTransientD1Error, runBatch } from "../../../worker/lib/db.ts";

const BUSY = "D1_ERROR: database is locked: SQLITE_BUSY";

/**
 * env.DB whose next `failures` runs (first, run, all, raw, batch, exec) throw `message` before
 * reaching D1; `calls` counts every run asked of it.
 */
function flakyD1(failures: number, message = BUSY) {
  const real = env.DB;
  const state = { calls: 0, left: failures };
  const realOf = new WeakMap<object, D1PreparedStatement>();
  const attempt = <T>(work: () => Promise<T>): Promise<T> => {
    state.calls++;
    if (state.left > 0) {
      state.left--;
      return Promise.reject(new Error(message));
    }
    return work();
  };
  const statement = (s: D1PreparedStatement): D1PreparedStatement => {
    const double = {
      bind: (...values: unknown[]) => statement(s.bind(...values)),
      first: (column?: string) => attempt(() => (column === undefined ? s.first() : s.first(column))),
      run: () => attempt(() => s.run()),
      all: () => attempt(() => s.all()),
      raw: (options?: { columnNames?: false }) => attempt(() => s.raw(options)),
    };
    realOf.set(double, s);
    return double as unknown as D1PreparedStatement;
  };
  const d1 = {
    prepare: (query: string) => statement(real.prepare(query)),
    batch: (statements: D1PreparedStatement[]) => attempt(() => real.batch(statements.map((s) => realOf.get(s) ?? s))),
    exec: (query: string) => attempt(() => real.exec(query)),
    withSession: () => real.withSession(),
    dump: () => real.dump(),
  } as unknown as D1Database;
  return { d1, state };
}

async function rejection(work: Promise<unknown>): Promise<unknown> {
  return work.then(
    () => expect.fail("expected the query to fail"),
    (err: unknown) => err,
  );
}

/** The D1 error under drizzle's "Failed query" wrapper. */
const causeOf = (err: unknown) => String(err instanceof Error && err.cause instanceof Error ? err.cause.message : err);

/** The production policy without its waits; the waits asked for are kept. */
function quick() {
  const waits: number[] = [];
  return { waits, policy: { ...D1_RETRY, sleep: async (ms: number) => void waits.push(ms) } };
}

describe("the D1 layer retries transient failures", () => {
  it("answers a query whose first run met SQLITE_BUSY, trying it once more", async () => {
    const { d1, state } = flakyD1(1);
    const { waits, policy } = quick();
    const plans = await database(d1, policy).query.plans.findMany();
    expect(plans).toHaveLength(4);
    expect(state.calls).toBe(2);
    expect(waits).toHaveLength(1);
  });

  it("runs a batch again after a transient failure, applied once", async () => {
    const { d1, state } = flakyD1(2, "D1_ERROR: Network connection lost.");
    const { policy } = quick();
    const db = database(d1, policy);
    const jti = `retry-${crypto.randomUUID()}`;
    await runBatch(db, [db.insert(spentTokens).values({ jti, expiresAt: "2099-01-01T00:00:00.000Z" })]);
    expect(state.calls).toBe(3);
    expect(await database(env.DB).select().from(spentTokens).where(eq(spentTokens.jti, jti))).toHaveLength(1);
  });

  it("gives up after a bounded number of tries, waiting longer each time, and throws the error", async () => {
    const { d1, state } = flakyD1(Number.POSITIVE_INFINITY);
    const { waits, policy } = quick();
    expect(causeOf(await rejection(database(d1, policy).query.plans.findMany()))).toMatch(/SQLITE_BUSY/);
    expect(state.calls).toBe(D1_RETRY.attempts);
    expect(waits).toHaveLength(D1_RETRY.attempts - 1);
    waits.forEach((ms, i) => {
      const ceiling = Math.min(D1_RETRY.maxDelayMs, D1_RETRY.baseDelayMs * 2 ** i);
      expect(ms).toBeGreaterThanOrEqual(ceiling / 2);
      expect(ms).toBeLessThanOrEqual(ceiling);
    });
    // The whole wait is bounded: under two seconds with the production policy.
    expect(waits.reduce((a, b) => a + b, 0)).toBeLessThan(2_000);
  });

  it("does not retry an error about the statement itself", async () => {
    const { d1, state } = flakyD1(1, "D1_ERROR: UNIQUE constraint failed: spent_tokens.jti: SQLITE_CONSTRAINT");
    expect(causeOf(await rejection(database(d1).query.plans.findMany()))).toMatch(/UNIQUE/);
    expect(state.calls).toBe(1);
    expect(isTransientD1Error(new Error("Failed query", { cause: new Error(BUSY) }))).toBe(true);
    expect(isTransientD1Error(new Error("D1_ERROR: no such table: nope"))).toBe(false);
  });

  it("keeps a request through the Worker from answering 500 when local D1 is busy once", async () => {
    const { d1, state } = flakyD1(1);
    const res = await newApp().request("/api/plans", {}, { ...env, DB: d1 });
    expect(res.status).toBe(200);
    expect(((await res.json()) as unknown[]).length).toBe(4);
    expect(state.calls).toBeGreaterThan(1);

    const signup = flakyD1(1);
    const created = await newApp().request(
      "/api/auth/signup",
      {
        method: "POST",
        headers: { "content-type": "application/json", "CF-Connecting-IP": "198.51.100.27" },
        body: JSON.stringify({
          email: `busy-${crypto.randomUUID()}@carrier.test`,
          password: `pw-${crypto.randomUUID()}`,
          accept_terms: true,
        }),
      },
      { ...env, DB: signup.d1 },
    );
    expect(created.status, await created.clone().text()).toBe(201);
  });
});
