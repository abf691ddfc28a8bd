// Cases (spec "Cases"): numbering per account under concurrency, one case per call, the call's
// verdict as a draft, every filter, the four statuses, assignment to active users only (the
// assignee told by e-mail), and the comment thread.
import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { giveVerdict, insertCall } from "../fixtures/call-record.ts";
import { addMember, createAccount, latestMailTo, type Session } from "../fixtures/factory.ts";
import { bodyOf, expectStatus, issuesOf } from "../fixtures/client.ts";

const countCases = async (owner: Session) =>
  (await env.DB.prepare("SELECT COUNT(*) AS n FROM cases WHERE customer_id = ?").bind(owner.account.id).first<{ n: number }>())!.n;

async function openCase(owner: Session, body: Record<string, unknown> = {}) {
  const res = await owner.client.post("/api/cases", { title: "Visa impersonation", ...body });
  expectStatus(res, 201);
  return res.body;
}

describe("POST /cases", () => {
  it("opens a case numbered from 1 per account, open, medium, with no comments", async () => {
    const owner = await createAccount();
    const first = await openCase(owner, { description: "Three calls this morning" });
    expect(first).toMatchObject({
      case_no: 1,
      customer_id: owner.account.id,
      call_id: null,
      title: "Visa impersonation",
      description: "Three calls this morning",
      status: "open",
      severity: "medium",
      created_by: owner.email,
      assigned_to: null,
      assigned_to_label: null,
      comment_count: 0,
    });
    expect((await openCase(owner, { severity: "critical" })).case_no).toBe(2);
    // Another account counts on its own.
    expect((await openCase(await createAccount())).case_no).toBe(1);
  });

  it("gives 50 cases opened at once 50 distinct consecutive numbers", async () => {
    const owner = await createAccount();
    const replies = await Promise.all(Array.from({ length: 50 }, (_, i) => owner.client.post("/api/cases", { title: `Case ${i}` })));
    expect(replies.map((r) => r.status)).toEqual(Array(50).fill(201));
    const numbers = replies.map((r) => bodyOf(r, 201).case_no).sort((a, b) => a - b);
    expect(numbers).toEqual(Array.from({ length: 50 }, (_, i) => i + 1));
    expect(await countCases(owner)).toBe(50);
  });

  it("refuses a bad body with 422 naming the field, and stores nothing", async () => {
    const owner = await createAccount();
    for (const [body, field] of [
      [{}, "title"],
      [{ title: "  " }, "title"],
      [{ title: "x", severity: "urgent" }, "severity"],
      [{ title: "x", call_id: "not-a-uuid" }, "call_id"],
    ] as const) {
      const res = await owner.client.post("/api/cases", body);
      expectStatus(res, 422, JSON.stringify(body));
      expect(issuesOf(res.body)[0]?.loc).toEqual(["body", field]);
    }
    expect(await countCases(owner)).toBe(0);
  });

  it("opens one case per call: the call shows it, a second answers 409, and no number is lost", async () => {
    const owner = await createAccount();
    const call = await insertCall(owner);
    const opened = await openCase(owner, { call_id: call.id });
    expect(opened.call_id).toBe(call.id);
    expect(bodyOf(await owner.client.get(`/api/calls/${call.id}`), 200).case_id).toBe(opened.id);

    const again = await owner.client.post("/api/cases", { title: "Again", call_id: call.id });
    expectStatus(again, 409);
    expect(again.body).toEqual({ detail: "case_already_exists_for_call" });
    expect((await openCase(owner)).case_no).toBe(2);
  });

  it("answers 404 Call not found for another account's call, storing nothing", async () => {
    const owner = await createAccount();
    const theirs = await insertCall(await createAccount());
    const res = await owner.client.post("/api/cases", { title: "x", call_id: theirs.id });
    expectStatus(res, 404);
    expect(res.body).toEqual({ detail: "Call not found" });
    expect(await countCases(owner)).toBe(0);
  });
});

describe("GET /cases", () => {
  it("filters by status, severity, assignee and call, newest first, with total, limit and offset", async () => {
    const owner = await createAccount();
    const member = await addMember(owner);
    const call = await insertCall(owner);
    const a = await openCase(owner, { title: "A", severity: "low" });
    const b = await openCase(owner, { title: "B", severity: "high", call_id: call.id });
    const c = await openCase(owner, { title: "C", severity: "high" });
    await owner.client.patch(`/api/cases/${a.id}`, { status: "resolved" });
    await owner.client.patch(`/api/cases/${c.id}`, { assigned_to: member.userId });

    const titles = async (query: string) => {
      const res = await owner.client.get(`/api/cases?${query}`);
      expectStatus(res, 200);
      return res.body.items.map((i) => i.title);
    };
    expect(await titles("")).toEqual(["C", "B", "A"]);
    expect(await titles("status=resolved")).toEqual(["A"]);
    expect(await titles("status=open")).toEqual(["C", "B"]);
    expect(await titles("severity=high")).toEqual(["C", "B"]);
    expect(await titles(`assigned_to=${member.userId}`)).toEqual(["C"]);
    expect(await titles(`call_id=${call.id}`)).toEqual(["B"]);
    expect(b.call_id).toBe(call.id);

    const paged = await owner.client.get("/api/cases?limit=1&offset=1");
    expectStatus(paged, 200);
    expect(paged.body).toMatchObject({ total: 3, limit: 1, offset: 1 });
    expect(paged.body.items.map((i) => i.title)).toEqual(["B"]);
    const assigned = bodyOf(await owner.client.get(`/api/cases?assigned_to=${member.userId}`), 200).items[0];
    expect(assigned?.assigned_to_label).toBe("Member");
  });

  it("answers 422 for filters out of range or of the wrong kind", async () => {
    const owner = await createAccount();
    for (const [query, field] of [
      ["limit=201", "limit"],
      ["limit=0", "limit"],
      ["offset=-1", "offset"],
      ["status=closed", "status"],
      ["severity=urgent", "severity"],
      ["assigned_to=someone", "assigned_to"],
      ["call_id=x", "call_id"],
    ]) {
      const res = await owner.client.get(`/api/cases?${query}`);
      expectStatus(res, 422, query);
      expect(issuesOf(res.body)[0]?.loc, query).toEqual(["query", field]);
    }
  });

  it("never lists another account's cases", async () => {
    const owner = await createAccount();
    await openCase(await createAccount());
    expect((await owner.client.get("/api/cases")).body).toMatchObject({ total: 0, items: [] });
  });
});

describe("GET /cases/{id}", () => {
  it("holds the comments oldest first and the call with its verdict", async () => {
    const owner = await createAccount();
    const call = await insertCall(owner);
    await giveVerdict(owner, call, { probability: 91, title: "Fake Visa fraud desk", red_flags: ["asks for PIN"] });
    const opened = await openCase(owner, { call_id: call.id });
    await owner.client.post(`/api/cases/${opened.id}/comments`, { body: "first" });
    await owner.client.post(`/api/cases/${opened.id}/comments`, { body: "second" });
    const res = await owner.client.get(`/api/cases/${opened.id}`);
    expectStatus(res, 200);
    expect(res.body.comments.map((c: { body: string }) => c.body)).toEqual(["first", "second"]);
    expect(res.body.comment_count).toBe(2);
    expect(res.body.call).toMatchObject({ id: call.id, analysis: { probability: 91, title: "Fake Visa fraud desk" } });
  });

  it("answers 404 Case not found for another account's case and for none", async () => {
    const owner = await createAccount();
    const theirs = await openCase(await createAccount());
    for (const id of [theirs.id, crypto.randomUUID()]) {
      const res = await owner.client.get(`/api/cases/${id}`);
      expectStatus(res, 404);
      expect(res.body).toEqual({ detail: "Case not found" });
    }
  });
});

describe("PATCH /cases/{id}", () => {
  it("moves between all four statuses in any order, each change written into the thread", async () => {
    const owner = await createAccount();
    const opened = await openCase(owner);
    for (const status of ["resolved", "in_review", "dismissed", "open", "resolved"]) {
      const res = await owner.client.patch(`/api/cases/${opened.id}`, { status });
      expectStatus(res, 200);
      expect(res.body.status).toBe(status);
    }
    const detail = bodyOf(await owner.client.get(`/api/cases/${opened.id}`), 200);
    expect(detail.comment_count).toBe(5);
    expect(detail.comments[0]).toMatchObject({ author_kind: "system", body: `Status changed from open to resolved by ${owner.email}.` });
    // The same status again changes nothing and writes nothing.
    expect(bodyOf(await owner.client.patch(`/api/cases/${opened.id}`, { status: "resolved" }), 200).comment_count).toBe(5);
  });

  it("changes title, description and severity; a status outside the four is 422", async () => {
    const owner = await createAccount();
    const opened = await openCase(owner);
    const res = await owner.client.patch(`/api/cases/${opened.id}`, { title: "Renamed", description: null, severity: "low" });
    expect(res.body).toMatchObject({ title: "Renamed", description: null, severity: "low", status: "open" });
    const bad = await owner.client.patch(`/api/cases/${opened.id}`, { status: "closed" });
    expectStatus(bad, 422);
    expect(issuesOf(bad.body)[0]?.loc).toEqual(["body", "status"]);
  });

  it("assigns to an active user of the account, who is told by e-mail, and unassigns", async () => {
    const owner = await createAccount();
    const member = await addMember(owner, "Ada Analyst");
    const opened = await openCase(owner, { title: "Spoofed bank calls" });
    const res = await owner.client.patch(`/api/cases/${opened.id}`, { assigned_to: member.userId });
    expectStatus(res, 200);
    expect(res.body).toMatchObject({ assigned_to: member.userId, assigned_to_label: "Ada Analyst" });
    const mail = await latestMailTo(member.email);
    expect(mail).toContain(`assigned case #${opened.case_no} to you`);
    expect(mail).toContain("Spoofed bank calls");

    const cleared = await owner.client.patch(`/api/cases/${opened.id}`, { clear_assigned_to: true });
    expect(cleared.body).toMatchObject({ assigned_to: null, assigned_to_label: null });
    const thread = bodyOf(await owner.client.get(`/api/cases/${opened.id}`), 200).comments.map((c: { body: string }) => c.body);
    expect(thread).toEqual([`Assigned to Ada Analyst by ${owner.email}.`, `Unassigned by ${owner.email}.`]);
  });

  it("refuses an assignee who is not an active user of this account with 422, changing nothing", async () => {
    const owner = await createAccount();
    const other = await createAccount();
    const inactive = await addMember(owner, "Gone");
    expect((await owner.client.patch(`/api/customer/users/${inactive.userId}`, { is_active: false })).status).toBe(200);
    const opened = await openCase(owner);
    for (const userId of [inactive.userId, other.account.id, crypto.randomUUID()]) {
      const res = await owner.client.patch(`/api/cases/${opened.id}`, { assigned_to: userId, title: "changed" });
      expectStatus(res, 422);
      expect(res.body.detail).toEqual([
        { loc: ["body", "assigned_to"], msg: "assigned_to must be an active user of this account", type: "value_error" },
      ]);
    }
    const otherOwner = bodyOf(await other.client.get("/api/customer/users"), 200).items[0]?.id;
    expect((await owner.client.patch(`/api/cases/${opened.id}`, { assigned_to: otherOwner })).status).toBe(422);
    expect((await owner.client.get(`/api/cases/${opened.id}`)).body).toMatchObject({ title: "Visa impersonation", assigned_to: null });
  });

  it("answers 404 for another account's case", async () => {
    const owner = await createAccount();
    const theirs = await openCase(await createAccount());
    expect((await owner.client.patch(`/api/cases/${theirs.id}`, { status: "resolved" })).status).toBe(404);
  });
});

describe("POST /cases/{id}/comments", () => {
  it("adds a user's comment with its author and counts it", async () => {
    const owner = await createAccount();
    const member = await addMember(owner, "Ada Analyst");
    const opened = await openCase(owner);
    const res = await member.client.post(`/api/cases/${opened.id}/comments`, { body: "Same ANI as last week." });
    expectStatus(res, 201);
    expect(res.body).toMatchObject({ author_kind: "user", author_label: "Ada Analyst", body: "Same ANI as last week." });
    expect(bodyOf(await owner.client.get(`/api/cases/${opened.id}`), 200).comment_count).toBe(1);
  });

  it("refuses an empty body with 422 and another account's case with 404", async () => {
    const owner = await createAccount();
    const opened = await openCase(owner);
    const empty = await owner.client.post(`/api/cases/${opened.id}/comments`, { body: "" });
    expectStatus(empty, 422);
    expect(issuesOf(empty.body)[0]?.loc).toEqual(["body", "body"]);
    const theirs = await openCase(await createAccount());
    expect((await owner.client.post(`/api/cases/${theirs.id}/comments`, { body: "hi" })).status).toBe(404);
    expect(bodyOf(await owner.client.get(`/api/cases/${opened.id}`), 200).comment_count).toBe(0);
  });
});

describe("GET /cases/prefill", () => {
  it("drafts the case from the call's verdict and names the call's case once there is one", async () => {
    const owner = await createAccount();
    const call = await insertCall(owner, { ani: "+14155550100", dialed: "18005550199" });
    await giveVerdict(owner, call, {
      probability: 93,
      category: "credit_card_scam",
      recommendation: "block",
      title: "Fake Visa fraud desk",
      entity: "Visa",
      red_flags: ["asks for the card PIN", "urgency"],
      summary: "Caller claimed the card was blocked.",
    });
    const res = await owner.client.get(`/api/cases/prefill?call_id=${call.id}`);
    expectStatus(res, 200);
    expect(res.body).toMatchObject({ title: "Fake Visa fraud desk", severity: "critical", existing_case_id: null });
    for (const text of [
      "+14155550100",
      "93% credit_card_scam",
      "Visa",
      "- asks for the card PIN",
      "Caller claimed the card was blocked.",
    ]) {
      expect(res.body.description).toContain(text);
    }
    const opened = await openCase(owner, { call_id: call.id });
    expect(bodyOf(await owner.client.get(`/api/cases/prefill?call_id=${call.id}`), 200).existing_case_id).toBe(opened.id);
  });

  it("maps probability to severity, and drafts from the call alone without a verdict", async () => {
    const owner = await createAccount();
    for (const [probability, severity] of [
      [90, "critical"],
      [70, "high"],
      [40, "medium"],
      [39, "low"],
    ] as const) {
      const call = await insertCall(owner);
      await giveVerdict(owner, call, { probability });
      expect(bodyOf(await owner.client.get(`/api/cases/prefill?call_id=${call.id}`), 200).severity, String(probability)).toBe(severity);
    }
    const plain = await insertCall(owner, { ani: "+14155550111" });
    expect((await owner.client.get(`/api/cases/prefill?call_id=${plain.id}`)).body).toMatchObject({
      title: "Call from +14155550111",
      severity: "medium",
      existing_case_id: null,
    });
  });

  it("answers 404 Call not found for another account's call and 422 without call_id", async () => {
    const owner = await createAccount();
    const theirs = await insertCall(await createAccount());
    const res = await owner.client.get(`/api/cases/prefill?call_id=${theirs.id}`);
    expectStatus(res, 404);
    expect(res.body).toEqual({ detail: "Call not found" });
    expect((await owner.client.get("/api/cases/prefill")).status).toBe(422);
  });
});
