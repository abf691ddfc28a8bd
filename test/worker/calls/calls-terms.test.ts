// GET /api/calls/entities and /api/calls/keywords: how many calls in the last `days` UTC calendar
// days claimed each entity or had each keyword, most frequent first.
import { describe, expect, it } from "vitest";
import { giveVerdict, insertCall } from "../fixtures/call-record.ts";
import { createAccount, type Session } from "../fixtures/factory.ts";
import { expectStatus, issuesOf } from "../fixtures/client.ts";

const DAY = 86_400_000;
/** Midnight UTC today, as milliseconds. */
const todayStart = () => Date.now() - (Date.now() % DAY);

async function analysedCall(owner: Session, startedAtMs: number, entity: string | null, keywords: string[]) {
  const call = await insertCall(owner, { started_at: new Date(startedAtMs).toISOString() });
  await giveVerdict(owner, call, { probability: 80, entity, keywords });
  return call;
}

describe("GET /api/calls/entities and /api/calls/keywords", () => {
  it("are not taken for a call id", async () => {
    const owner = await createAccount();
    for (const path of ["/api/calls/entities", "/api/calls/keywords"] as const) {
      const res = await owner.client.get(path);
      expectStatus(res, 200, `${path}: ${JSON.stringify(res.body)}`);
      expect(res.body).toEqual([]);
    }
  });

  it("count calls per entity and per keyword, most frequent first, then by name", async () => {
    const owner = await createAccount();
    const hour = Date.now() - 3_600_000;
    await analysedCall(owner, hour, "Visa", ["pin", "card"]);
    await analysedCall(owner, hour + 1000, "Visa", ["pin"]);
    await analysedCall(owner, hour + 2000, "IRS", ["warrant", "pin"]);
    await analysedCall(owner, hour + 3000, "Amazon", ["card"]);
    await analysedCall(owner, hour + 4000, null, ["refund"]);

    const entities = await owner.client.get("/api/calls/entities");
    expect(entities.body).toEqual([
      { entity: "Visa", count: 2 },
      { entity: "Amazon", count: 1 },
      { entity: "IRS", count: 1 },
    ]);
    const keywords = await owner.client.get("/api/calls/keywords");
    expect(keywords.body).toEqual([
      { keyword: "pin", count: 3 },
      { keyword: "card", count: 2 },
      { keyword: "refund", count: 1 },
      { keyword: "warrant", count: 1 },
    ]);
    expect((await owner.client.get("/api/calls/keywords?limit=2")).body).toEqual([
      { keyword: "pin", count: 3 },
      { keyword: "card", count: 2 },
    ]);
    expect((await owner.client.get("/api/calls/entities?limit=1")).body).toEqual([{ entity: "Visa", count: 2 }]);
  });

  it("count only the current verdict's terms: a new analysis replaces the call's entity and keywords", async () => {
    const owner = await createAccount();
    const call = await analysedCall(owner, Date.now() - 60_000, "Visa", ["pin"]);
    await giveVerdict(owner, call, { probability: 20, entity: "Mastercard", keywords: ["statement"] });
    expect((await owner.client.get("/api/calls/entities")).body).toEqual([{ entity: "Mastercard", count: 1 }]);
    expect((await owner.client.get("/api/calls/keywords")).body).toEqual([{ keyword: "statement", count: 1 }]);
  });

  it("window: the last `days` UTC calendar days, today included (30 by default)", async () => {
    const owner = await createAccount();
    await analysedCall(owner, todayStart() + 1000, "Today", ["today"]);
    await analysedCall(owner, todayStart() - 1000, "Yesterday", ["yesterday"]);
    await analysedCall(owner, todayStart() - 29 * DAY, "Day30", ["day30"]);
    await analysedCall(owner, todayStart() - 29 * DAY - 1000, "Day31", ["day31"]);
    await analysedCall(owner, todayStart() - 200 * DAY, "Old", ["old"]);

    const names = async (path: string) =>
      ((await owner.client.get(path)).body as { entity?: string; keyword?: string }[]).map((r) => r.entity ?? r.keyword).sort();
    expect(await names("/api/calls/entities?days=1")).toEqual(["Today"]);
    expect(await names("/api/calls/entities?days=2")).toEqual(["Today", "Yesterday"]);
    expect(await names("/api/calls/entities")).toEqual(["Day30", "Today", "Yesterday"]);
    expect(await names("/api/calls/keywords")).toEqual(["day30", "today", "yesterday"]);
    expect(await names("/api/calls/keywords?days=31")).toEqual(["day30", "day31", "today", "yesterday"]);
    expect(await names("/api/calls/entities?days=365")).toEqual(["Day30", "Day31", "Old", "Today", "Yesterday"]);
  });

  it("answer 422 naming days or limit outside their range", async () => {
    const owner = await createAccount();
    for (const path of ["/api/calls/entities", "/api/calls/keywords"] as const) {
      for (const [query, param] of [
        ["days=0", "days"],
        ["days=366", "days"],
        ["days=abc", "days"],
        ["limit=0", "limit"],
        ["limit=51", "limit"],
      ]) {
        const res = await owner.client.get(`${path}?${query}`);
        expectStatus(res, 422, `${path}?${query}`);
        expect(issuesOf(res.body)[0]?.loc).toEqual(["query", param]);
      }
    }
  });

  it("count none of another account's calls", async () => {
    const owner = await createAccount();
    const stranger = await createAccount();
    await analysedCall(stranger, Date.now() - 60_000, "Visa", ["pin"]);
    await analysedCall(owner, Date.now() - 60_000, "Visa", ["card"]);
    expect((await owner.client.get("/api/calls/entities")).body).toEqual([{ entity: "Visa", count: 1 }]);
    expect((await owner.client.get("/api/calls/keywords")).body).toEqual([{ keyword: "card", count: 1 }]);
  });
});
