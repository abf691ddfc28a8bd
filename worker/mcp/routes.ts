// /api/mcp, the remote MCP server: POST speaks JSON-RPC (stateless Streamable HTTP), GET
// describes the server (or 405 to a client asking for an event stream: none is kept), DELETE
// is a no-op 204 (no session to end). Origin and MCP-Protocol-Version are checked first.
import { Hono, type Context } from "hono";
import type { Bindings, Config } from "../env.ts";
import type { Services } from "../services/context.ts";
import { mcpDescription } from "./description.ts";
import { authenticate, refuseForeignOrigin, refuseUnsupportedVersion } from "./http-guards.ts";
import { answerMcpPost } from "./transport.ts";

/** What the root app's middleware puts on every request's context. */
type McpEnv = { Bindings: Bindings; Variables: { config: Config; services: Services } };

/** Origin and protocol version, checked on every method. */
const refused = (c: Context<McpEnv>) => refuseForeignOrigin(c.req.raw, c.var.config) ?? refuseUnsupportedVersion(c.req.raw);

const wantsEventStream = (accept: string | undefined) =>
  Boolean(accept?.includes("text/event-stream") && !accept.includes("application/json"));

export function newMcpApp() {
  const app = new Hono<McpEnv>();
  app.post("/", async (c) => {
    const early = refused(c);
    if (early) return early;
    const auth = await authenticate(c.var.services, c.req.raw);
    if ("refused" in auth) return auth.refused;
    return answerMcpPost({ services: c.var.services, principal: auth.principal }, c.req.raw);
  });
  app.get("/", (c) => {
    const early = refused(c);
    if (early) return early;
    if (wantsEventStream(c.req.header("Accept"))) {
      return Response.json(
        { detail: "No event stream: this server is stateless" },
        { status: 405, headers: { Allow: "GET, POST, DELETE" } },
      );
    }
    return c.json(mcpDescription(c.var.services.origin));
  });
  app.delete("/", (c) => refused(c) ?? c.body(null, 204));
  app.all("/", () => Response.json({ detail: "Method Not Allowed" }, { status: 405, headers: { Allow: "GET, POST, DELETE" } }));
  return app;
}
