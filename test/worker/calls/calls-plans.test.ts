// The query plans of GET /calls and of the entity and keyword counts, as SQLite makes them for the
// SQL the service runs: each main filter and sort key is served by an index leading with the
// account, so a page never reads other accounts' calls nor the whole of one account's.
import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { CallListQuery } from "../../../worker/resources/call-list.ts";
import { callCountQuery, callListQuery } from "../../../worker/services/calls/search.ts";
import { testServices } from "../fixtures/factory.ts";

async function planOf(query: { toSQL(): { sql: string; params: unknown[] } }): Promise<string[]> {
  const { sql, params } = query.toSQL();
  const plan = await env.DB.prepare(`EXPLAIN QUERY PLAN ${sql}`)
    .bind(...params)
    .all<{ detail: string }>();
  return plan.results.map((r) => r.detail);
}

/** Query parameters → the index that must drive the page (and, unless told, the count). */
const SERVED: [string, Record<string, unknown>, string, string?][] = [
  ["no filter", {}, "calls_customer_started_idx", "calls_customer_"],
  ["status", { status: "completed" }, "calls_customer_status_started_idx"],
  ["analysis_status", { analysis_status: "pending" }, "calls_customer_analysis_status_started_idx"],
  ["from and to", { from: "2026-01-01", to: "2026-02-01" }, "calls_customer_started_idx"],
  ["min_probability", { min_probability: "70" }, "calls_customer_probability_started_idx"],
  ["external_id", { external_id: "crm-1" }, "calls_customer_external_id_started_idx"],
  ["origin", { origin: "dialer" }, "calls_customer_origin_started_idx"],
  ["sip_call_id", { sip_call_id: "abc@carrier.test" }, "calls_customer_sip_call_id_started_idx"],
  ["sampled", { sampled: "false" }, "calls_customer_sampled_started_idx"],
  ["category", { category: "robocall" }, "calls_customer_category_started_idx"],
  ["recommendation", { recommendation: "block" }, "calls_customer_recommendation_started_idx"],
  ["destination_id", { destination_id: "0190f2c4-8a5e-7cc1-9a6b-2f1e3d4c5b6a" }, "calls_customer_destination_started_idx"],
  ["route_alert", { route_alert: "true" }, "calls_customer_route_alert_started_idx"],
  ["sub_customer", { sub_customer: "Acme" }, "calls_customer_sub_customer_started_idx"],
  ["identity_status", { identity_status: "failed" }, "calls_customer_identity_status_started_idx"],
  ["attestation", { attestation: "C" }, "calls_customer_attestation_started_idx"],
  ["entity", { entity: "Visa" }, "call_entities_customer_entity_started_idx"],
  ["keyword", { keyword: "pin" }, "call_keywords_customer_keyword_started_idx"],
  ["sort=-probability", { sort: "-probability" }, "calls_customer_probability_started_idx", "calls_customer_"],
  ["sort=-duration_sec", { sort: "-duration_sec" }, "calls_customer_duration_started_idx", "calls_customer_"],
];

const FULL_SCAN = /^SCAN (calls|call_entities|call_keywords|analyses|transcripts)\b/;

describe("query plans of GET /calls", () => {
  const db = testServices().db;
  const customerId = crypto.randomUUID();

  it.each(SERVED)("%s is served by an index", async (_name, raw, index, countIndex) => {
    const query = CallListQuery.parse(raw);
    const page = await planOf(callListQuery(db, customerId, query));
    const total = await planOf(callCountQuery(db, customerId, query));
    expect(
      page.filter((line) => FULL_SCAN.test(line)),
      page.join("\n"),
    ).toEqual([]);
    expect(
      total.filter((line) => FULL_SCAN.test(line)),
      total.join("\n"),
    ).toEqual([]);
    expect(page[0], page.join("\n")).toContain(`INDEX ${index} `);
    expect(total[0], total.join("\n")).toContain(`INDEX ${countIndex ?? index}`);
  });

  it("started_at sorts read the index in order: no sort of the matches beyond the id tie-break", async () => {
    for (const sort of ["-started_at", "started_at"]) {
      const plan = await planOf(callListQuery(db, customerId, CallListQuery.parse({ sort })));
      expect(
        plan.filter((line) => line.includes("TEMP B-TREE")),
        plan.join("\n"),
      ).toEqual(["USE TEMP B-TREE FOR LAST TERM OF ORDER BY"]);
    }
  });

  it("q reads the account's calls through its index and each call's transcripts through theirs", async () => {
    const query = CallListQuery.parse({ q: "bank" });
    const plan = await planOf(callListQuery(db, customerId, query));
    expect(
      plan.filter((line) => FULL_SCAN.test(line)),
      plan.join("\n"),
    ).toEqual([]);
    expect(plan.join("\n")).toMatch(/SEARCH calls USING INDEX calls_customer_\w+ \(customer_id=\?\)/);
    expect(plan.join("\n")).toContain("SEARCH transcripts USING INDEX transcripts_call_created_idx (call_id=?)");
  });
});
