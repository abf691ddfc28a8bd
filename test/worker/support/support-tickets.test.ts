// Support tickets (spec "Support tickets" and its state table): numbering per account under
// concurrency, kinds, a ticket with a call disputes its verdict, open and closed by the customer
// (closed_at), answered refused with the spec's 422, a customer message reopening a closed
// ticket, and the service team's replies through the platform administrator's route.
import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { giveVerdict, insertCall } from "../fixtures/call-record.ts";
import { bodyOf, expectStatus, issuesOf, request } from "../fixtures/client.ts";
import { addMember, createAccount, latestMailTo, makePlatformAdmin, type Session } from "../fixtures/factory.ts";

const SERVICE_TEAM = "service-team@call-shield.example";

const countTickets = async (owner: Session) =>
  (await env.DB.prepare("SELECT COUNT(*) AS n FROM support_tickets WHERE customer_id = ?").bind(owner.account.id).first<{ n: number }>())!
    .n;

async function openTicket(owner: Session, body: Record<string, unknown> = {}) {
  const res = await owner.client.post("/api/support/tickets", { subject: "Routing question", body: "How do prefixes win?", ...body });
  expectStatus(res, 201);
  return res.body;
}

async function platformAdmin(): Promise<Session> {
  const admin = await createAccount();
  await makePlatformAdmin(admin);
  return admin;
}

describe("POST /support/tickets", () => {
  it("opens a question numbered from 1 per account and mails the service team", async () => {
    const owner = await createAccount({ company: "Northwind Telecom" });
    const ticket = await openTicket(owner, { body: "Which rule wins for +4930?" });
    expect(ticket).toMatchObject({
      ticket_no: 1,
      customer_id: owner.account.id,
      kind: "question",
      subject: "Routing question",
      body: "Which rule wins for +4930?",
      call_id: null,
      status: "open",
      created_by: owner.email,
      closed_at: null,
      message_count: 0,
    });
    const mail = await latestMailTo(SERVICE_TEAM);
    expect(mail).toContain("Northwind Telecom");
    expect(mail).toContain("Which rule wins for +4930?");
    expect((await openTicket(owner, { kind: "bug" })).ticket_no).toBe(2);
  });

  it("counts tickets apart from cases", async () => {
    const owner = await createAccount();
    for (let i = 0; i < 3; i++) expect((await owner.client.post("/api/cases", { title: `Case ${i}` })).status).toBe(201);
    expect((await openTicket(owner)).ticket_no).toBe(1);
    expect(bodyOf(await owner.client.post("/api/cases", { title: "Next" }), 201).case_no).toBe(4);
  });

  it("makes a ticket with a call a dispute of that call's verdict, showing the call", async () => {
    const owner = await createAccount();
    const call = await insertCall(owner);
    await giveVerdict(owner, call, { probability: 88, recommendation: "block" });
    const dispute = await openTicket(owner, { subject: "Not fraud", body: "That was our IVR.", call_id: call.id });
    expect(dispute).toMatchObject({ kind: "analysis", call_id: call.id });
    const detail = bodyOf(await owner.client.get(`/api/support/tickets/${dispute.id}`), 200);
    expect(detail.call).toMatchObject({ id: call.id, analysis: { probability: 88, recommendation: "block" } });
    // A kind given with the call is kept (a billing question about one call).
    expect((await openTicket(owner, { kind: "billing", call_id: call.id })).kind).toBe("billing");
  });

  it("answers 404 Call not found for another account's call, storing nothing", async () => {
    const owner = await createAccount();
    const theirs = await insertCall(await createAccount());
    const res = await owner.client.post("/api/support/tickets", { subject: "x", body: "y", call_id: theirs.id });
    expectStatus(res, 404);
    expect(res.body).toEqual({ detail: "Call not found" });
    expect(await countTickets(owner)).toBe(0);
  });

  it("refuses a bad body with 422 naming the field, and stores nothing", async () => {
    const owner = await createAccount();
    for (const [body, field] of [
      [{ body: "no subject" }, "subject"],
      [{ subject: "no body" }, "body"],
      [{ subject: "x", body: "y", kind: "complaint" }, "kind"],
      [{ subject: "x", body: "y", call_id: "nope" }, "call_id"],
    ] as const) {
      const res = await owner.client.post("/api/support/tickets", body);
      expectStatus(res, 422, JSON.stringify(body));
      expect(issuesOf(res.body)[0]?.loc).toEqual(["body", field]);
    }
    expect(await countTickets(owner)).toBe(0);
  });

  it("gives 50 tickets opened at once 50 distinct consecutive numbers", async () => {
    const owner = await createAccount();
    const replies = await Promise.all(
      Array.from({ length: 50 }, (_, i) => owner.client.post("/api/support/tickets", { subject: `T${i}`, body: "b" })),
    );
    expect(replies.map((r) => r.status)).toEqual(Array(50).fill(201));
    expect(replies.map((r) => bodyOf(r, 201).ticket_no).sort((a, b) => a - b)).toEqual(Array.from({ length: 50 }, (_, i) => i + 1));
  });
});

describe("GET /support/tickets", () => {
  it("filters by status and kind, newest first, with total, limit and offset", async () => {
    const owner = await createAccount();
    const a = await openTicket(owner, { subject: "A", kind: "bug" });
    await openTicket(owner, { subject: "B", kind: "feature" });
    await openTicket(owner, { subject: "C", kind: "bug" });
    await owner.client.patch(`/api/support/tickets/${a.id}`, { status: "closed" });
    const subjects = async (query: string) =>
      bodyOf(await owner.client.get(`/api/support/tickets?${query}`), 200).items.map((t) => t.subject);
    expect(await subjects("")).toEqual(["C", "B", "A"]);
    expect(await subjects("kind=bug")).toEqual(["C", "A"]);
    expect(await subjects("status=closed")).toEqual(["A"]);
    expect(await subjects("status=open&kind=bug")).toEqual(["C"]);
    const paged = bodyOf(await owner.client.get("/api/support/tickets?limit=2&offset=1"), 200);
    expect(paged).toMatchObject({ total: 3, limit: 2, offset: 1 });
    expect(paged.items.map((t) => t.subject)).toEqual(["B", "A"]);
    expect(bodyOf(await (await createAccount()).client.get("/api/support/tickets"), 200).total).toBe(0);
  });

  it("answers 422 for a bad filter", async () => {
    const owner = await createAccount();
    for (const [query, field] of [
      ["limit=201", "limit"],
      ["status=pending", "status"],
      ["kind=complaint", "kind"],
    ]) {
      const res = await owner.client.get(`/api/support/tickets?${query}`);
      expectStatus(res, 422, query);
      expect(issuesOf(res.body)[0]?.loc).toEqual(["query", field]);
    }
  });
});

describe("PATCH /support/tickets/{id}", () => {
  it("closes (closed_at set) and reopens (closed_at cleared)", async () => {
    const owner = await createAccount();
    const ticket = await openTicket(owner);
    const closed = await owner.client.patch(`/api/support/tickets/${ticket.id}`, { status: "closed" });
    expectStatus(closed, 200);
    expect(closed.body.status).toBe("closed");
    expect(Date.parse(closed.body.closed_at ?? "")).toBeGreaterThan(Date.now() - 60_000);
    // Closing again keeps the first closing time.
    expect(bodyOf(await owner.client.patch(`/api/support/tickets/${ticket.id}`, { status: "closed" }), 200).closed_at).toBe(
      closed.body.closed_at,
    );
    const reopened = await owner.client.patch(`/api/support/tickets/${ticket.id}`, { status: "open" });
    expect(reopened.body).toMatchObject({ status: "open", closed_at: null });
  });

  it("refuses answered with 422, whatever the state, leaving the ticket unchanged", async () => {
    const owner = await createAccount();
    const ticket = await openTicket(owner);
    for (const before of ["open", "closed"]) {
      await owner.client.patch(`/api/support/tickets/${ticket.id}`, { status: before });
      const res = await owner.client.patch(`/api/support/tickets/${ticket.id}`, { status: "answered" });
      expectStatus(res, 422);
      expect(res.body.detail).toEqual([
        { loc: ["body", "status"], msg: "only a reply from support marks a ticket answered", type: "value_error" },
      ]);
      expect(bodyOf(await owner.client.get(`/api/support/tickets/${ticket.id}`), 200).status).toBe(before);
    }
  });

  it("answers 404 Ticket not found for another account's ticket", async () => {
    const owner = await createAccount();
    const theirs = await openTicket(await createAccount());
    const res = await owner.client.patch(`/api/support/tickets/${theirs.id}`, { status: "closed" });
    expectStatus(res, 404);
    expect(res.body).toEqual({ detail: "Ticket not found" });
    expect((await owner.client.get(`/api/support/tickets/${theirs.id}`)).status).toBe(404);
  });
});

describe("POST /support/tickets/{id}/messages", () => {
  it("reopens a closed ticket, counts the message and sends it to the service team", async () => {
    const owner = await createAccount();
    const member = await addMember(owner, "Ada Analyst");
    const ticket = await openTicket(owner);
    await owner.client.patch(`/api/support/tickets/${ticket.id}`, { status: "closed" });
    const res = await member.client.post(`/api/support/tickets/${ticket.id}/messages`, { body: "Still happening on +4930." });
    expectStatus(res, 201);
    expect(res.body).toMatchObject({ author_kind: "customer", author_label: "Ada Analyst", body: "Still happening on +4930." });
    const detail = bodyOf(await owner.client.get(`/api/support/tickets/${ticket.id}`), 200);
    expect(detail).toMatchObject({ status: "open", closed_at: null, message_count: 1 });
    expect(detail.messages.map((m) => m.body)).toEqual(["Still happening on +4930."]);
    const mail = await latestMailTo(SERVICE_TEAM);
    expect(mail).toContain("Still happening on +4930.");
    expect(mail).toContain("From: Ada Analyst");
  });

  it("refuses an empty message with 422 and another account's ticket with 404", async () => {
    const owner = await createAccount();
    const ticket = await openTicket(owner);
    expect((await owner.client.post(`/api/support/tickets/${ticket.id}/messages`, { body: " " })).status).toBe(422);
    const theirs = await openTicket(await createAccount());
    expect((await owner.client.post(`/api/support/tickets/${theirs.id}/messages`, { body: "hi" })).status).toBe(404);
  });
});

describe("the service team's replies (platform administrators)", () => {
  it("marks the ticket answered, shows as support, and mails the user who opened it", async () => {
    const owner = await createAccount();
    const member = await addMember(owner, "Ada Analyst");
    const ticket = await openTicket(member, { subject: "Prefix question" });
    const admin = await platformAdmin();
    const reply = await admin.client.post(`/api/admin/support/tickets/${ticket.id}/messages`, { body: "The longest prefix wins." });
    expectStatus(reply, 201);
    expect(reply.body).toMatchObject({ author_kind: "support", author_label: "Support team", body: "The longest prefix wins." });

    const detail = (await owner.client.get(`/api/support/tickets/${ticket.id}`)).body;
    expect(detail).toMatchObject({ status: "answered", message_count: 1 });
    const mail = await latestMailTo(member.email);
    expect(mail).toContain("The longest prefix wins.");
    expect(mail).toContain(`ticket #${ticket.ticket_no}`);

    // The customer's next message puts it back in the service team's queue.
    await owner.client.post(`/api/support/tickets/${ticket.id}/messages`, { body: "Thanks, and for +49?" });
    expect(bodyOf(await owner.client.get(`/api/support/tickets/${ticket.id}`), 200).status).toBe("open");
  });

  it("lets the customer close or reopen an answered ticket", async () => {
    const owner = await createAccount();
    const admin = await platformAdmin();
    const ticket = await openTicket(owner);
    for (const next of ["closed", "open"]) {
      expect((await admin.client.post(`/api/admin/support/tickets/${ticket.id}/messages`, { body: "Answer" })).status).toBe(201);
      expect((await owner.client.get(`/api/support/tickets/${ticket.id}`)).body).toMatchObject({ status: "answered", closed_at: null });
      const moved = await owner.client.patch(`/api/support/tickets/${ticket.id}`, { status: next });
      expectStatus(moved, 200);
      expect(moved.body.status).toBe(next);
      expect(moved.body.closed_at === null).toBe(next === "open");
    }
  });

  it("lists every account's tickets for the service team, filtered by status", async () => {
    const [one, two] = await Promise.all([createAccount(), createAccount()]);
    const a = await openTicket(one, { subject: "from one" });
    const b = await openTicket(two, { subject: "from two" });
    await two.client.patch(`/api/support/tickets/${b.id}`, { status: "closed" });
    const admin = await platformAdmin();
    const open = bodyOf(await admin.client.get("/api/admin/support/tickets?status=open&limit=200"), 200).items.map((t) => t.id);
    expect(open).toContain(a.id);
    expect(open).not.toContain(b.id);
  });

  it("refuses anyone but a platform administrator in person (403 admin_required), and an unknown ticket is 404", async () => {
    const owner = await createAccount();
    const ticket = await openTicket(owner);
    const body = { body: "I am support, honest." };
    const own = await owner.client.post(`/api/admin/support/tickets/${ticket.id}/messages`, body);
    expectStatus(own, 403);
    expect(own.body).toEqual({ detail: "admin_required" });
    expect((await owner.client.get("/api/admin/support/tickets")).status).toBe(403);

    const admin = await platformAdmin();
    const key = await admin.client.post("/api/auth/api-keys", { name: "script" });
    expectStatus(key, 201);
    const byKey = await request("POST", `/api/admin/support/tickets/${ticket.id}/messages`, { apiKey: key.body.key, body });
    expectStatus(byKey, 403);
    expect((await owner.client.get(`/api/support/tickets/${ticket.id}`)).body).toMatchObject({ status: "open", message_count: 0 });

    const missing = await admin.client.post(`/api/admin/support/tickets/${crypto.randomUUID()}/messages`, body);
    expectStatus(missing, 404);
    expect(missing.body).toEqual({ detail: "Ticket not found" });
  });
});
