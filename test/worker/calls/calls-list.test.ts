// GET /api/calls: every filter of the spec, each bad value answered 422 naming its parameter,
// the sort keys over all matches, and the verdict summary of each item.
import { describe, expect, it } from "vitest";
import { addTranscript, giveVerdict, insertCall } from "../fixtures/call-record.ts";
import { createAccount, type Session } from "../fixtures/factory.ts";
import { bodyOf, expectStatus, firstOf, issuesOf } from "../fixtures/client.ts";

const list = (owner: Session, query = "") => owner.client.get(`/api/calls?${query}`);

/** The ids of the page, in order, after asserting 200. */
async function idsOf(owner: Session, query: string): Promise<string[]> {
  const res = await list(owner, query);
  expectStatus(res, 200);
  expect(res.body.total, `total of ?${query}`).toBe(res.body.items.length);
  return res.body.items.map((c) => c.id);
}

/** The same set of ids, whatever the order. */
const sameSet = (found: string[], expected: string[]) => expect([...found].sort()).toEqual([...expected].sort());

/** Asserts a 422 whose first issue names the query parameter. */
async function refused(owner: Session, query: string, param: string) {
  const res = await list(owner, query);
  expectStatus(res, 422, `?${query}`);
  const issue = firstOf(issuesOf(res.body), "an issue");
  expect(issue.loc.slice(0, 2), `?${query}`).toEqual(["query", param]);
  return issue;
}

const at = (iso: string, deltaMs: number) => new Date(Date.parse(iso) + deltaMs).toISOString();

describe("GET /api/calls filters", () => {
  it("status, and 422 for a status calls never have", async () => {
    const owner = await createAccount();
    const done = await insertCall(owner, { status: "completed" });
    const failed = await insertCall(owner, { status: "failed", answered_at: null, billsec: 0 });
    const up = await insertCall(owner, { status: "active", ended_at: null, duration_sec: null });
    expect(await idsOf(owner, "status=failed")).toEqual([failed.id]);
    expect(await idsOf(owner, "status=active")).toEqual([up.id]);
    expect(await idsOf(owner, "status=completed")).toEqual([done.id]);
    expect(await idsOf(owner, "status=rejected")).toEqual([]);
    expect((await refused(owner, "status=done", "status")).msg).toBe("status must be one of ringing, active, completed, failed, rejected");
  });

  it("analysis_status, and 422 for a value that is not a status name", async () => {
    const owner = await createAccount();
    await insertCall(owner, { analysis_status: "none" });
    const pending = await insertCall(owner, { analysis_status: "pending" });
    expect(await idsOf(owner, "analysis_status=pending")).toEqual([pending.id]);
    expect(await idsOf(owner, "analysis_status=failed")).toEqual([]);
    await refused(owner, "analysis_status=Not%20Valid!", "analysis_status");
  });

  it("from (inclusive) and to (exclusive), with offsets and dates; 422 for a bad or reversed window", async () => {
    const owner = await createAccount();
    const base = "2026-03-10T12:00:00.000Z";
    const first = await insertCall(owner, { started_at: at(base, -2 * 3_600_000) });
    const second = await insertCall(owner, { started_at: at(base, -3_600_000) });
    const third = await insertCall(owner, { started_at: base });
    sameSet(await idsOf(owner, `from=${second.started_at}`), [second.id, third.id]);
    sameSet(await idsOf(owner, `to=${second.started_at}`), [first.id]);
    sameSet(await idsOf(owner, `from=${first.started_at}&to=${third.started_at}`), [first.id, second.id]);
    // The same instant written with an offset, and without a zone (read as UTC).
    sameSet(await idsOf(owner, `from=${encodeURIComponent("2026-03-10T13:00:00+02:00")}`), [second.id, third.id]);
    sameSet(await idsOf(owner, "from=2026-03-10T11:00:00"), [second.id, third.id]);
    // A date alone is its midnight UTC.
    sameSet(await idsOf(owner, "from=2026-03-10&to=2026-03-11"), [first.id, second.id, third.id]);
    expect(await idsOf(owner, "from=2026-03-11")).toEqual([]);
    expect(await idsOf(owner, "to=2026-03-10")).toEqual([]);

    expect((await refused(owner, "from=yesterday", "from")).msg).toMatch(/^from must be an ISO 8601 timestamp/);
    await refused(owner, "to=2026-02-30", "to");
    await refused(owner, "to=2026-03-10T25:00:00Z", "to");
    expect((await refused(owner, "from=2026-03-11&to=2026-03-10", "to")).msg).toBe("to must be later than from");
  });

  it("min_probability 0-100 keeps calls whose verdict reaches it; 422 outside 0-100 or not an integer", async () => {
    const owner = await createAccount();
    const low = await insertCall(owner);
    const edge = await insertCall(owner);
    const high = await insertCall(owner);
    await insertCall(owner); // never analysed
    await giveVerdict(owner, low, { probability: 10 });
    await giveVerdict(owner, edge, { probability: 70 });
    await giveVerdict(owner, high, { probability: 100 });
    sameSet(await idsOf(owner, "min_probability=70"), [edge.id, high.id]);
    sameSet(await idsOf(owner, "min_probability=100"), [high.id]);
    // 0 asks for every call with a verdict: one without is not "at least 0".
    sameSet(await idsOf(owner, "min_probability=0"), [low.id, edge.id, high.id]);
    for (const bad of ["101", "-1", "1.5", "abc"]) {
      expect((await refused(owner, `min_probability=${bad}`, "min_probability")).msg).toBe(
        "min_probability must be an integer from 0 to 100",
      );
    }
  });

  it("external_id and sip_call_id match exactly", async () => {
    const owner = await createAccount();
    const tagged = await insertCall(owner, { external_id: "crm-42" });
    await insertCall(owner, { external_id: "crm-421" });
    expect(await idsOf(owner, "external_id=crm-42")).toEqual([tagged.id]);
    expect(await idsOf(owner, `sip_call_id=${encodeURIComponent(String(tagged.sip_call_id))}`)).toEqual([tagged.id]);
    expect(await idsOf(owner, "sip_call_id=nobody@carrier.test")).toEqual([]);
    await refused(owner, `external_id=${"x".repeat(201)}`, "external_id");
  });

  it("origin sip, dialer or test; 422 for anything else", async () => {
    const owner = await createAccount();
    const dialer = await insertCall(owner, { origin: "dialer" });
    const sip = await insertCall(owner, { origin: "sip" });
    expect(await idsOf(owner, "origin=dialer")).toEqual([dialer.id]);
    expect(await idsOf(owner, "origin=sip")).toEqual([sip.id]);
    expect(await idsOf(owner, "origin=test")).toEqual([]);
    expect((await refused(owner, "origin=pstn", "origin")).msg).toBe("origin must be 'sip', 'dialer' or 'test'");
  });

  it("sampled and route_alert are booleans; 422 for maybe", async () => {
    const owner = await createAccount();
    const left = await insertCall(owner, { sampled: false });
    const taken = await insertCall(owner, { sampled: true });
    await giveVerdict(owner, taken, { probability: 90, route_alert: { kind: "no_live_party" } });
    expect(await idsOf(owner, "sampled=false")).toEqual([left.id]);
    expect(await idsOf(owner, "sampled=0")).toEqual([left.id]);
    expect(await idsOf(owner, "sampled=true")).toEqual([taken.id]);
    expect(await idsOf(owner, "route_alert=true")).toEqual([taken.id]);
    expect(await idsOf(owner, "route_alert=false")).toEqual([left.id]);
    expect((await refused(owner, "sampled=maybe", "sampled")).msg).toBe("sampled must be true or false");
    expect((await refused(owner, "route_alert=maybe", "route_alert")).msg).toBe("route_alert must be true or false");
  });

  it("q finds the caller, the dialed number, the transcript and its summary, case-insensitively", async () => {
    const owner = await createAccount();
    const byAni = await insertCall(owner, { ani: "+14155550177", dialed: "18005550000" });
    const byDialed = await insertCall(owner, { ani: "+33123456789", dialed: "442079460123" });
    const bySummary = await insertCall(owner, { transcript_summary: "Caller claims to be from the IRS." });
    const byTranscript = await insertCall(owner);
    await addTranscript(owner, byTranscript.id, { text: "Press one to speak to a Card Services agent" });
    await insertCall(owner, { ani: "+19995550000", dialed: "19995550001" });

    expect(await idsOf(owner, "q=4155550177")).toEqual([byAni.id]);
    // A formatted number finds the digits.
    expect(await idsOf(owner, `q=${encodeURIComponent("+1 (415) 555-0177")}`)).toEqual([byAni.id]);
    expect(await idsOf(owner, "q=2079460123")).toEqual([byDialed.id]);
    expect(await idsOf(owner, "q=irs")).toEqual([bySummary.id]);
    expect(await idsOf(owner, "q=card%20services")).toEqual([byTranscript.id]);
    // LIKE's own characters are taken literally; an empty q is no filter.
    expect(await idsOf(owner, "q=%25")).toEqual([]);
    expect(await idsOf(owner, "q=_")).toEqual([]);
    expect(bodyOf(await list(owner, "q="), 200).total).toBe(5);
    await refused(owner, `q=${"a".repeat(201)}`, "q");
  });

  it("q takes a long phrase (up to its 200 characters), which a LIKE pattern in D1 could not", async () => {
    const owner = await createAccount();
    const phrase = "please read me the one time code we just sent to your phone and do not hang up on the fraud team";
    const said = await insertCall(owner);
    await addTranscript(owner, said.id, { text: `Caller: Hello, ${phrase}. Thank you.` });
    await insertCall(owner);
    const res = await list(owner, `q=${encodeURIComponent(phrase)}`);
    expectStatus(res, 200);
    expect(res.body.items.map((c) => c.id)).toEqual([said.id]);
  });

  it("category and recommendation; 422 for a value that cannot be one", async () => {
    const owner = await createAccount();
    const scam = await insertCall(owner);
    const fine = await insertCall(owner);
    await giveVerdict(owner, scam, { probability: 92, category: "credit_card_scam", recommendation: "block" });
    await giveVerdict(owner, fine, { probability: 5, category: "legitimate", recommendation: "allow" });
    expect(await idsOf(owner, "category=credit_card_scam")).toEqual([scam.id]);
    expect(await idsOf(owner, "recommendation=allow")).toEqual([fine.id]);
    expect(await idsOf(owner, "recommendation=review")).toEqual([]);
    await refused(owner, "category=Credit%20Card!", "category");
    expect((await refused(owner, "recommendation=deny", "recommendation")).msg).toBe("recommendation must be one of block, review, allow");
  });

  it("destination_id is a UUID; 422 otherwise", async () => {
    const owner = await createAccount();
    const destination = crypto.randomUUID();
    const routed = await insertCall(owner, { routed_destination_id: destination });
    await insertCall(owner, { routed_destination_id: crypto.randomUUID() });
    expect(await idsOf(owner, `destination_id=${destination}`)).toEqual([routed.id]);
    expect((await refused(owner, "destination_id=not-a-uuid", "destination_id")).msg).toBe("destination_id must be a UUID");
  });

  it("entity and sub_customer match exactly", async () => {
    const owner = await createAccount();
    const visa = await insertCall(owner, { sub_customer: "Acme" });
    const irs = await insertCall(owner, { sub_customer: "Globex" });
    await giveVerdict(owner, visa, { probability: 80, entity: "Visa" });
    await giveVerdict(owner, irs, { probability: 85, entity: "IRS" });
    expect(await idsOf(owner, "entity=Visa")).toEqual([visa.id]);
    expect(await idsOf(owner, "entity=Vis")).toEqual([]);
    expect(await idsOf(owner, "sub_customer=Globex")).toEqual([irs.id]);
  });

  it("keyword is repeatable: a call must have every keyword given, compared in lower case", async () => {
    const owner = await createAccount();
    const both = await insertCall(owner);
    const one = await insertCall(owner);
    await giveVerdict(owner, both, { probability: 90, keywords: ["gift card", "urgent"] });
    await giveVerdict(owner, one, { probability: 60, keywords: ["urgent"] });
    sameSet(await idsOf(owner, "keyword=urgent"), [both.id, one.id]);
    expect(await idsOf(owner, "keyword=urgent&keyword=gift%20card")).toEqual([both.id]);
    expect(await idsOf(owner, "keyword=URGENT&keyword=Gift%20Card")).toEqual([both.id]);
    expect(await idsOf(owner, "keyword=urgent&keyword=refund")).toEqual([]);
    await refused(owner, Array.from({ length: 11 }, (_, i) => `keyword=k${i}`).join("&"), "keyword");
    await refused(owner, "keyword=", "keyword");
  });

  it("combines filters: every one given must hold", async () => {
    const owner = await createAccount();
    const match = await insertCall(owner, { status: "completed", sub_customer: "Acme" });
    const wrongStatus = await insertCall(owner, { status: "failed", sub_customer: "Acme" });
    const wrongKeyword = await insertCall(owner, { status: "completed", sub_customer: "Acme" });
    await giveVerdict(owner, match, { probability: 90, entity: "Visa", keywords: ["pin"] });
    await giveVerdict(owner, wrongStatus, { probability: 90, entity: "Visa", keywords: ["pin"] });
    await giveVerdict(owner, wrongKeyword, { probability: 90, entity: "Visa", keywords: ["otp"] });
    expect(await idsOf(owner, "status=completed&sub_customer=Acme&min_probability=80&entity=Visa&keyword=pin")).toEqual([match.id]);
  });

  it("limit 1-500 and offset 0-2147483647; 422 outside", async () => {
    const owner = await createAccount();
    for (let i = 0; i < 3; i++) await insertCall(owner);
    const page = await list(owner, "limit=2&offset=2");
    expectStatus(page, 200);
    expect(page.body).toMatchObject({ total: 3, limit: 2, offset: 2 });
    expect(page.body.items).toHaveLength(1);
    expect(bodyOf(await list(owner), 200).limit).toBe(50);
    await refused(owner, "limit=0", "limit");
    await refused(owner, "limit=501", "limit");
    await refused(owner, "offset=-1", "offset");
    await refused(owner, "offset=2147483648", "offset");
  });

  it("lists none of another account's calls, whatever the filter", async () => {
    const owner = await createAccount();
    const stranger = await createAccount();
    const theirs = await insertCall(stranger, { external_id: "shared-id" });
    await giveVerdict(stranger, theirs, { probability: 99, entity: "Visa", keywords: ["pin"] });
    expect(await idsOf(owner, "")).toEqual([]);
    expect(await idsOf(owner, "external_id=shared-id")).toEqual([]);
    expect(await idsOf(owner, "entity=Visa&keyword=pin")).toEqual([]);
    expect(await idsOf(owner, "q=4155550100")).toEqual([]);
  });
});

describe("GET /api/calls sort", () => {
  /** Four calls: started in order a, b, c, d; probabilities and durations shuffled; d has neither. */
  async function fourCalls() {
    const owner = await createAccount();
    const a = await insertCall(owner, { duration_sec: 40 });
    const b = await insertCall(owner, { duration_sec: 10 });
    const c = await insertCall(owner, { duration_sec: 40 });
    const d = await insertCall(owner, { status: "active", ended_at: null, duration_sec: null });
    await giveVerdict(owner, a, { probability: 50 });
    await giveVerdict(owner, b, { probability: 95 });
    await giveVerdict(owner, c, { probability: 50 });
    return { owner, a: a.id, b: b.id, c: c.id, d: d.id };
  }

  it("defines every key; ties go newest first and calls without the value come last", async () => {
    const { owner, a, b, c, d } = await fourCalls();
    expect(await idsOf(owner, "")).toEqual([d, c, b, a]);
    expect(await idsOf(owner, "sort=-started_at")).toEqual([d, c, b, a]);
    expect(await idsOf(owner, "sort=started_at")).toEqual([a, b, c, d]);
    expect(await idsOf(owner, "sort=-probability")).toEqual([b, c, a, d]);
    expect(await idsOf(owner, "sort=probability")).toEqual([c, a, b, d]);
    expect(await idsOf(owner, "sort=-duration_sec")).toEqual([c, a, b, d]);
    expect(await idsOf(owner, "sort=duration_sec")).toEqual([b, c, a, d]);
    expect((await refused(owner, "sort=risk", "sort")).msg).toMatch(/^sort must be one of -started_at, started_at, -probability/);
  });

  it("sorts over all matches: pages follow one another with nothing repeated or left out", async () => {
    const { owner, a, b, c, d } = await fourCalls();
    const pages = [];
    for (let offset = 0; offset < 4; offset += 1) {
      const res = await list(owner, `sort=-probability&limit=1&offset=${offset}`);
      expectStatus(res, 200);
      expect(res.body.total).toBe(4);
      pages.push(res.body.items[0]?.id);
    }
    expect(pages).toEqual([b, c, a, d]);
    // A filter narrows first; the sort orders what is left.
    expect(await idsOf(owner, "sort=probability&min_probability=50")).toEqual([c, a, b]);
  });
});

describe("GET /api/calls items", () => {
  it("carry the verdict summary: the row's copy, with title, red flags, entity and keywords of the newest analysis", async () => {
    const owner = await createAccount();
    const call = await insertCall(owner);
    const plain = await insertCall(owner);
    await giveVerdict(owner, call, { probability: 40, category: "robocall", entity: "Old Bank", created_at: "2026-01-01T00:00:00.000Z" });
    await giveVerdict(owner, call, {
      probability: 91,
      category: "credit_card_scam",
      recommendation: "block",
      title: "Card services scam",
      red_flags: ["Asks for the card's PIN"],
      entity: "Visa",
      keywords: ["pin", "card"],
    });
    const res = await list(owner);
    expectStatus(res, 200);
    const item = res.body.items.find((i) => i.id === call.id);
    expect(item?.analysis).toEqual({
      title: "Card services scam",
      probability: 91,
      category: "credit_card_scam",
      recommendation: "block",
      red_flags: ["Asks for the card's PIN"],
      entity: "Visa",
      keywords: ["pin", "card"],
    });
    expect(item?.has_route_alert).toBe(false);
    expect(res.body.items.find((i) => i.id === plain.id)?.analysis).toBeNull();
  });
});
