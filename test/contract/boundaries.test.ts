// The import boundaries of docs/decisions.md ("How the code is organised") are enforced by
// eslint.config.js: these files would each break one, and the linter must say so.
import { ESLint } from "eslint";
import { describe, expect, it } from "vitest";

const eslint = new ESLint({ cwd: new URL("../..", import.meta.url).pathname });

async function violations(filePath: string, code: string): Promise<string[]> {
  const [result] = await eslint.lintText(code, { filePath });
  return result!.messages.filter((m) => m.ruleId === "no-restricted-imports").map((m) => m.message);
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

  it("let a route file use the shared enums and the services", async () => {
    const found = await violations(
      "worker/api/destinations/routes.ts",
      'import { TRANSPORTS } from "../../../schema/enums.ts";\nimport { listDestinations } from "../../services/destinations.ts";\nexport const x = [TRANSPORTS, listDestinations];\n',
    );
    expect(found).toEqual([]);
  });

  it("refuse a front door or Hono in a service", async () => {
    const found = await violations(
      "worker/services/calls/calls.ts",
      'import { Hono } from "hono";\nimport { register } from "../api/calls/index.ts";\nexport const x = [Hono, register];\n',
    );
    expect(found).toHaveLength(2);
  });

  it("refuse the node API's internals in a route file", async () => {
    const found = await violations(
      "worker/api/calls/routes.ts",
      'import { admitCall } from "../../internal/admission.ts";\nexport const x = admitCall;\n',
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
});
