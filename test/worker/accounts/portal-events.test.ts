// POST /customer/events (spec: Events rule 5): two kinds, 50 per call (422 beyond, nothing
// stored), only a count in the answer, the path stored without its query string.
import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { addMember, createAccount, type Session } from "../fixtures/factory.ts";
import { expectStatus, issuesOf } from "../fixtures/client.ts";

const stored = async (owner: Session) =>
  (
    await env.DB.prepare("SELECT user_id, kind, props FROM portal_events WHERE customer_id = ? ORDER BY rowid").bind(owner.account.id).all()
  ).results.map((r: any) => ({ ...r, props: JSON.parse(r.props) }));

describe("POST /customer/events", () => {
  it("stores page views by path only and feature use by name, answering only the count", async () => {
    const owner = await createAccount();
    const res = await owner.client.post("/api/customer/events", {
      events: [
        { kind: "page_view", props: { path: "/calls/0192?q=card+4111&password=hunter2#top" } },
        { kind: "page_view", props: { path: "https://portal.example/settings/webhook?secret=x" } },
        { kind: "feature_used", props: { name: "calls.export", value: "form contents" } },
      ],
    });
    expect(res).toMatchObject({ status: 200, body: { count: 3 } });
    expect(Object.keys(res.body)).toEqual(["count"]);
    const me = await owner.client.get("/api/auth/me");
    const rows = await stored(owner);
    expect(rows).toEqual([
      { user_id: expect.any(String), kind: "page_view", props: { path: "/calls/0192" } },
      { user_id: expect.any(String), kind: "page_view", props: { path: "/settings/webhook" } },
      { user_id: expect.any(String), kind: "feature_used", props: { name: "calls.export" } },
    ]);
    expect(JSON.stringify(rows)).not.toMatch(/hunter2|4111|secret=|form contents/);
    expectStatus(me, 200);
  });

  it("takes 50 events in one call and refuses 51 with 422 naming events, storing nothing", async () => {
    const owner = await createAccount();
    const event = { kind: "page_view", props: { path: "/dashboard" } };
    expect((await owner.client.post("/api/customer/events", { events: Array(50).fill(event) })).body).toEqual({ count: 50 });
    const over = await owner.client.post("/api/customer/events", { events: Array(51).fill(event) });
    expectStatus(over, 422);
    expect(issuesOf(over.body)[0]?.loc).toEqual(["body", "events"]);
    expect(await stored(owner)).toHaveLength(50);
  });

  it("accepts only the two kinds, each with its prop (422 otherwise, nothing stored)", async () => {
    const owner = await createAccount();
    for (const events of [
      [{ kind: "click", props: { target: "button" } }],
      [{ kind: "page_view", props: {} }],
      [{ kind: "feature_used", props: { name: "has spaces and <html>" } }],
      [
        { kind: "page_view", props: { path: "/ok" } },
        { kind: "form_submit", props: { path: "/x" } },
      ],
      [],
    ]) {
      const res = await owner.client.post("/api/customer/events", { events });
      expectStatus(res, 422, JSON.stringify(events));
      expect(issuesOf(res.body)[0]?.loc[1]).toBe("events");
    }
    expect(await stored(owner)).toEqual([]);
  });

  it("records the member who reported them", async () => {
    const owner = await createAccount();
    const member = await addMember(owner);
    expect(
      (await member.client.post("/api/customer/events", { events: [{ kind: "feature_used", props: { name: "cases.create" } }] })).body,
    ).toEqual({
      count: 1,
    });
    expect(await stored(owner)).toEqual([{ user_id: member.userId, kind: "feature_used", props: { name: "cases.create" } }]);
  });
});
