// The MCP server as outside tools see it, over real HTTP: the Worker under `wrangler dev`, the
// conformance suite of @modelcontextprotocol/conformance (the scenarios that do not apply are in
// mcp-conformance-baseline.yml with why), and the MCP Inspector's CLI listing the tools with a
// bearer token (without one: the list, but no tool that needs sign-in). Both run offline against
// loopback and take a few seconds once the Worker is up.
import { spawn } from "node:child_process";
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startMcpUnderTest, type McpUnderTest } from "../../scripts/lib/mcp-under-test.mjs";

const root = new URL("../..", import.meta.url).pathname;
// Both tools need Node 22 (the project's own, a devDependency) whatever node runs vitest.
const NODE = existsSync(join(root, "node_modules/.bin/node")) ? join(root, "node_modules/.bin/node") : process.execPath;
const CONFORMANCE = join(root, "node_modules/@modelcontextprotocol/conformance/dist/index.js");
const INSPECTOR = join(root, "node_modules/@modelcontextprotocol/inspector/clients/launcher/build/index.js");

function run(args: string[], cwd: string): Promise<{ code: number | null; out: string; stdout: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(NODE, args, { cwd, stdio: ["ignore", "pipe", "pipe"] });
    let out = "";
    let stdout = "";
    child.stdout.on("data", (d) => ((out += d), (stdout += d)));
    child.stderr.on("data", (d) => (out += d));
    child.on("error", reject);
    child.on("exit", (code) => resolve({ code, out, stdout }));
  });
}

let mcp: McpUnderTest;
const work = mkdtempSync(join(tmpdir(), "mcp-conformance-"));

beforeAll(async () => {
  mcp = await startMcpUnderTest();
});

afterAll(async () => {
  await mcp?.stop();
  rmSync(work, { recursive: true, force: true });
});

/** The checks a scenario's run left in the output folder. */
function checksOf(scenario: string): { id: string; status: string }[] {
  const folder = readdirSync(work).find((name) => name.startsWith(`server-${scenario}-`));
  if (!folder) throw new Error(`no results for ${scenario}`);
  return JSON.parse(readFileSync(join(work, folder, "checks.json"), "utf8"));
}

describe("MCP conformance", () => {
  it("passes every scenario that applies; the others are the baseline's, each with why", async () => {
    const baseline = join(root, "test/contract/mcp-conformance-baseline.yml");
    const { code, out } = await run([CONFORMANCE, "server", "--url", mcp.frontUrl, "--expected-failures", baseline, "-o", work], work);
    expect(code, out.slice(-4000)).toBe(0);
    for (const scenario of ["server-initialize", "ping", "tools-list", "dns-rebinding-protection"]) {
      const checks = checksOf(scenario);
      expect(checks.length, scenario).toBeGreaterThan(0);
      expect(
        checks.filter((c) => c.status !== "SUCCESS"),
        scenario,
      ).toEqual([]);
    }
    expect(checksOf("dns-rebinding-protection").map((c) => c.id)).toEqual([
      "localhost-host-rebinding-rejected",
      "localhost-host-valid-accepted",
    ]);
  });

  it("the MCP Inspector CLI lists the tools with a bearer token", async () => {
    const args = ["--cli", mcp.mcpUrl, "--transport", "http", "--header", `Authorization: Bearer ${mcp.token}`, "--method", "tools/list"];
    const { code, out, stdout } = await run([INSPECTOR, ...args], work);
    expect(code, out.slice(-2000)).toBe(0);
    const { tools } = JSON.parse(stdout) as { tools: { name: string; annotations?: object }[] };
    expect(tools.map((t) => t.name)).toEqual(expect.arrayContaining(["get_started", "list_calls", "place_test_call", "report_links"]));
    expect(tools.every((t) => t.annotations)).toBe(true);

    // Without a credential the tools are listed (issue 31: the agent plugin starts that way), and a tool needing sign-in is refused.
    const anonymous = await run([INSPECTOR, "--cli", mcp.mcpUrl, "--transport", "http", "--method", "tools/list"], work);
    expect(anonymous.code, anonymous.out.slice(-2000)).toBe(0);
    const refused = await run(
      [INSPECTOR, "--cli", mcp.mcpUrl, "--transport", "http", "--method", "tools/call", "--tool-name", "list_calls"],
      work,
    );
    expect(refused.code).not.toBe(0);
  });
});
