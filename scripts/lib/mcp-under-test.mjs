// The MCP server as outside tools meet it: the Worker under `wrangler dev` (its own local state),
// an account with an API key, and a loopback front at /mcp that adds the key to each request, for
// clients that cannot send a credential (the conformance runner connects anonymously).
import { randomBytes } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { createServer } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { freeTcpPort } from "./ports.mjs";
import { startWranglerDev } from "./wrangler-dev.mjs";

const HOP_BY_HOP = new Set(["host", "connection", "content-length", "transfer-encoding", "keep-alive"]);

async function json(base, path, { token, body } = {}) {
  const res = await fetch(`${base}${path}`, {
    method: "POST",
    headers: { "content-type": "application/json", ...(token ? { authorization: `Bearer ${token}` } : {}) },
    body: JSON.stringify(body),
  });
  const answer = await res.json();
  if (!res.ok) throw new Error(`${path}: ${res.status} ${JSON.stringify(answer)}`);
  return answer;
}

/** An account of the Worker at `base` and an API key its owner minted. */
export async function accountWithKey(base) {
  const signup = await json(base, "/api/auth/signup", {
    body: {
      email: `mcp-${randomBytes(6).toString("hex")}@carrier.test`,
      password: `pw-${randomBytes(12).toString("hex")}`,
      accept_terms: true,
    },
  });
  const key = await json(base, "/api/auth/api-keys", { token: signup.access_token, body: { name: "mcp conformance" } });
  return { token: signup.access_token, apiKey: key.key };
}

/** Forwards /mcp on a loopback port to `target`, adding the API key; Origin and everything else pass as sent. */
export async function keyedFront(target, apiKey) {
  const port = await freeTcpPort();
  const server = createServer(async (req, res) => {
    const chunks = [];
    for await (const chunk of req) chunks.push(chunk);
    const headers = Object.fromEntries(Object.entries(req.headers).filter(([name]) => !HOP_BY_HOP.has(name)));
    try {
      const answer = await fetch(target, {
        method: req.method,
        headers: { ...headers, "x-api-key": apiKey },
        body: ["GET", "HEAD"].includes(req.method) ? undefined : Buffer.concat(chunks),
      });
      const out = {};
      answer.headers.forEach((value, name) => {
        if (!HOP_BY_HOP.has(name) && name !== "content-encoding") out[name] = value;
      });
      res.writeHead(answer.status, out).end(Buffer.from(await answer.arrayBuffer()));
    } catch (err) {
      res.writeHead(502).end(String(err));
    }
  });
  await new Promise((resolve) => server.listen(port, "127.0.0.1", resolve));
  return { url: `http://localhost:${port}/mcp`, close: () => new Promise((resolve) => server.close(resolve)) };
}

/** wrangler dev on a fresh state folder, an account, its key, and the keyed front. */
export async function startMcpUnderTest() {
  const state = mkdtempSync(join(tmpdir(), "mcp-under-test-"));
  const secret = () => randomBytes(32).toString("base64url");
  const wrangler = await startWranglerDev({
    port: await freeTcpPort(),
    persistTo: state,
    stdio: "ignore",
    vars: { JWT_SECRET: secret(), ENCRYPTION_KEY: secret(), NODE_TOKEN: secret() },
  });
  try {
    await wrangler.ready;
    const account = await accountWithKey(wrangler.base);
    const front = await keyedFront(`${wrangler.base}/api/mcp`, account.apiKey);
    return {
      base: wrangler.base,
      mcpUrl: `${wrangler.base}/api/mcp`,
      frontUrl: front.url,
      ...account,
      async stop() {
        await front.close();
        await wrangler.stop();
        rmSync(state, { recursive: true, force: true });
      },
    };
  } catch (err) {
    await wrangler.stop();
    rmSync(state, { recursive: true, force: true });
    throw err;
  }
}
