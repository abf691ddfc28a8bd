// The import boundaries of docs/decisions/code-layout.md#what-the-linter-and-the-cycle-check-keep-apart are enforced by
// eslint.config.js: these files would each break one, and the linter must say so; a few next to
// them keep to it and must pass (the services of a front door's name are not that front door).
import { ESLint } from "eslint";
import { describe, expect, it } from "vitest";

const eslint = new ESLint({ cwd: new URL("../..", import.meta.url).pathname });

async function violations(filePath: string, code: string): Promise<string[]> {
  const [result] = await eslint.lintText(code, { filePath });
  return result!.messages.filter((m) => m.ruleId === "no-restricted-imports" || m.ruleId === "layers/imports").map((m) => m.message);
}

describe("import boundaries", () => {
  it("refuse drizzle and the tables in a route file", async () => {
    const found = await violations(
      "worker/api/destinations/routes.ts",
      'import { eq } from "drizzle-orm";\nimport { destinations } from "../../../schema/network.ts";\nexport const x = [eq, destinations];\n',
    );
    expect(found).toHaveLength(2);
    expect(found[0]).toMatch(/Only services .* touch the database/);
  });

  it("let a route file use the shared enums and numbers, and the services", async () => {
    const found = await violations(
      "worker/api/destinations/routes.ts",
      'import { TRANSPORTS } from "../../../schema/enums.ts";\nimport { normalizeNumber } from "../../../schema/numbers.ts";\nimport { listDestinations } from "../../services/destinations.ts";\nexport const x = [TRANSPORTS, normalizeNumber, listDestinations];\n',
    );
    expect(found).toEqual([]);
  });

  it("refuse a front door or Hono in a service", async () => {
    const found = await violations(
      "worker/services/calls/calls.ts",
      'import { Hono } from "hono";\nimport { register } from "../../api/calls/index.ts";\nexport const x = [Hono, register];\n',
    );
    expect(found).toHaveLength(2);
  });

  it("refuse the node API's internals in a route file", async () => {
    const found = await violations(
      "worker/api/calls/routes.ts",
      'import { requireNode } from "../../internal/node-auth.ts";\nexport const x = requireNode;\n',
    );
    expect(found).toHaveLength(1);
  });

  it("refuse drizzle, the tables and another front door in a page", async () => {
    const found = await violations(
      "worker/pages/mail.ts",
      'import { desc } from "drizzle-orm";\nimport { outboxEmails } from "../../schema/events.ts";\nimport type { AppEnv } from "../api/context.ts";\nexport const x = [desc, outboxEmails];\nexport type Y = AppEnv;\n',
    );
    expect(found).toHaveLength(3);
    expect(found[0]).toMatch(/Only services .* touch the database/);
    expect(found[2]).toMatch(/pages\/ is one front door/);
  });

  it("let a page use the services", async () => {
    const found = await violations(
      "worker/pages/mail.ts",
      'import { latestOutboxMail } from "../services/outbox.ts";\nexport const x = latestOutboxMail;\n',
    );
    expect(found).toEqual([]);
  });

  it("refuse Worker code in the SIP node", async () => {
    const found = await violations(
      "sip-node/b2bua/b2bua.ts",
      'import { newId } from "../../worker/lib/ids.ts";\nexport const x = newId;\n',
    );
    expect(found).toHaveLength(1);
  });
  it("refuse drizzle, the tables and another front door in the node API", async () => {
    const found = await violations(
      "worker/internal/app.ts",
      'import { eq } from "drizzle-orm";\nimport { calls } from "../../schema/calls.ts";\nimport { success } from "../exchange/respond.ts";\nexport const x = [eq, calls, success];\n',
    );
    expect(found).toHaveLength(3);
    expect(found[0]).toMatch(/Only services .* touch the database/);
    expect(found[2]).toMatch(/internal\/ is one front door/);
  });

  it("let the node API use the wire schemas and the nodes' services", async () => {
    const found = await violations(
      "worker/internal/app.ts",
      'import { AdmitRequest } from "../../schema/node-api.ts";\nimport { admitCall } from "../services/nodes/admission.ts";\nexport const x = [AdmitRequest, admitCall];\n',
    );
    expect(found).toEqual([]);
  });

  it("refuse the tables and another front door in OAuth, not its services", async () => {
    const found = await violations(
      "worker/oauth/token.ts",
      'import { oauthClients } from "../../schema/oauth.ts";\nimport { Api } from "../api/context.ts";\nimport { spendCode } from "../services/oauth/codes.ts";\nexport const x = [oauthClients, Api, spendCode];\n',
    );
    expect(found).toHaveLength(2);
    expect(found[0]).toMatch(/Only services .* touch the database/);
    expect(found[1]).toMatch(/oauth\/ is one front door/);
  });

  it("refuse drizzle, the tables, another front door and the composition root in an exchange route", async () => {
    const found = await violations(
      "worker/exchange/esim/routes.ts",
      'import { eq } from "drizzle-orm";\nimport { esims } from "../../../schema/exchange.ts";\nimport { nodeIdOf } from "../../internal/node-auth.ts";\nimport { newServices } from "../../composition.ts";\nexport const x = [eq, esims, nodeIdOf, newServices];\n',
    );
    expect(found).toHaveLength(4);
    expect(found[1]).toMatch(/Only services .* touch the database/);
    expect(found[2]).toMatch(/exchange\/ is one front door/);
    expect(found[3]).toMatch(/only the entry points build them/);
  });

  it("let an exchange route use the exchange's services", async () => {
    const found = await violations(
      "worker/exchange/esim/routes.ts",
      'import { purchaseEsim } from "../../services/exchange/esim/purchase.ts";\nimport { Purchase } from "../../services/exchange/esim/schemas.ts";\nexport const x = [purchaseEsim, Purchase];\n',
    );
    expect(found).toEqual([]);
  });

  it("refuse drizzle, a database of its own and a front door in a queue consumer", async () => {
    const found = await violations(
      "worker/queues/analysis.ts",
      'import { sql } from "drizzle-orm";\nimport { database } from "../lib/db.ts";\nimport { renderError } from "../api/render-error.ts";\nexport const x = [sql, database, renderError];\n',
    );
    expect(found).toHaveLength(3);
    expect(found[1]).toMatch(/Entry points take the database with the Services/);
    expect(found[2]).toMatch(/call services, not a front door/);
  });

  it("refuse the tables, a database of its own and a front door in a cron job", async () => {
    const found = await violations(
      "worker/cron/exchange-nonces.ts",
      'import { digestNonceCounters } from "../../schema/exchange.ts";\nimport { database } from "../lib/db.ts";\nimport { idempotencyKeyOf } from "../exchange/idempotency.ts";\nexport const x = [digestNonceCounters, database, idempotencyKeyOf];\n',
    );
    expect(found).toHaveLength(3);
    expect(found[0]).toMatch(/Only services .* touch the database/);
  });

  it("let a cron job call the services", async () => {
    const found = await violations(
      "worker/cron/exchange-nonces.ts",
      'import type { Services } from "../services/context.ts";\nimport { sweepNonceCounters } from "../services/exchange/nonce-counters.ts";\nexport type S = Services;\nexport const x = sweepNonceCounters;\n',
    );
    expect(found).toEqual([]);
  });

  it("refuse the Worker in a Durable Object, which shares only schema/ with it", async () => {
    const found = await violations(
      "durable-objects/account-ledger.ts",
      'import type { Services } from "../worker/services/context.ts";\nimport { newApp } from "../worker/app.ts";\nimport { toUsd } from "../worker/lib/money.ts";\nimport { normalizeNumber } from "../schema/numbers.ts";\nimport type { CallEvent } from "../schema/node-api.ts";\nexport type S = Services | CallEvent;\nexport const x = [newApp, toUsd, normalizeNumber];\n',
    );
    expect(found).toHaveLength(3);
    expect(found[0]).toMatch(/Durable Objects share only schema\/ with the Worker/);
  });

  it("refuse the exchange's front door and Hono in an exchange service, not the tables or its own modules", async () => {
    const found = await violations(
      "worker/services/exchange/accounts.ts",
      'import { Hono } from "hono";\nimport { success } from "../../exchange/respond.ts";\nimport { eq } from "drizzle-orm";\nimport { exchangeAccounts } from "../../../schema/exchange.ts";\nimport { credit } from "./ledger.ts";\nimport { NotFound } from "../errors.ts";\nexport const x = [Hono, success, eq, exchangeAccounts, credit, NotFound];\n',
    );
    expect(found).toHaveLength(2);
    expect(found[1]).toMatch(/Services sit below every front door/);
  });

  it("refuse the node API and the composition root in a nodes service", async () => {
    const found = await violations(
      "worker/services/nodes/call-media.ts",
      'import { nodeIdOf } from "../../internal/node-auth.ts";\nimport { newServices } from "../../composition.ts";\nexport const x = [nodeIdOf, newServices];\n',
    );
    expect(found).toHaveLength(2);
    expect(found[0]).toMatch(/Services sit below every front door/);
    expect(found[1]).toMatch(/never import the composition root/);
  });

  it("refuse services, front doors and the database in a provider", async () => {
    const found = await violations(
      "worker/providers/mail/mail.ts",
      'import { latestOutboxMail } from "../../services/alerts/outbox.ts";\nimport { newMailPages } from "../../pages/mail.ts";\nimport { outboxEmails } from "../../../schema/events.ts";\nexport const x = [latestOutboxMail, newMailPages, outboxEmails];\n',
    );
    expect(found).toHaveLength(3);
    expect(found.filter((m) => /Providers are the outside edges/.test(m))).toHaveLength(2);
    expect(found.some((m) => /Only services .* touch the database/.test(m))).toBe(true);
  });

  it("refuse anything of worker/ above lib in lib", async () => {
    const found = await violations(
      "worker/lib/money.ts",
      'import { NotFound } from "../services/errors.ts";\nimport { analyserFrom } from "../providers/index.ts";\nimport { loadConfig } from "../env.ts";\nimport { nowIso } from "./time.ts";\nimport type { MediaName } from "../../schema/node-api.ts";\nexport type M = MediaName;\nexport const x = [NotFound, analyserFrom, loadConfig, nowIso];\n',
    );
    expect(found).toHaveLength(3);
    expect(found[0]).toMatch(/lib\/ is the bottom of the Worker/);
  });

  it("refuse a front door in http/, which the front doors share", async () => {
    const found = await violations(
      "worker/http/client-ip.ts",
      'import { renderError } from "../api/render-error.ts";\nexport const x = renderError;\n',
    );
    expect(found).toHaveLength(1);
    expect(found[0]).toMatch(/http\/ is shared by the front doors/);
  });
});
