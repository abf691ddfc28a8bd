// Which SIP node is calling the internal API. Each node has its own token (NODE_TOKENS,
// "node-id:token" pairs) and names itself in X-Node-Id (the hub's WebSocket: ?node_id=); removing
// its pair revokes it without touching the others. A node not listed there presents NODE_TOKEN,
// the single token of local development (leave it unset in production). A listed node's own token
// is the only one it may use.
import type { Context, MiddlewareHandler } from "hono";
import type { AppEnv } from "../api/context.ts";
import type { Config } from "../env.ts";
import { timingSafeEqual } from "../lib/crypto.ts";
import { ApiError, unauthorized } from "../lib/errors.ts";

const encoder = new TextEncoder();

/** The node id a request names: X-Node-Id, or node_id in the query (a WebSocket upgrade). */
export const nodeIdOf = (c: Context) => c.req.header("X-Node-Id") ?? c.req.query("node_id") ?? null;

/** Does `presented` authenticate the node `nodeId` (null: unnamed)? */
export function nodeTokenValid(config: Pick<Config, "NODE_TOKEN" | "NODE_TOKENS">, nodeId: string | null, presented: string): boolean {
  const own = nodeId !== null && Object.hasOwn(config.NODE_TOKENS, nodeId) ? config.NODE_TOKENS[nodeId] : undefined;
  const expected = own ?? config.NODE_TOKEN;
  return expected !== undefined && timingSafeEqual(encoder.encode(presented), encoder.encode(expected));
}

/**
 * A node with a token of its own speaks only for itself: a body naming another node_id (admitting
 * or reporting calls as another node, ending its calls) is refused. Nodes on NODE_TOKEN are not
 * told apart, so nothing binds them.
 */
export function requireSameNode(c: Context<AppEnv>, body: unknown): void {
  const nodeId = nodeIdOf(c);
  if (nodeId === null || !Object.hasOwn(c.var.config.NODE_TOKENS, nodeId)) return;
  const named = typeof body === "object" && body !== null ? (body as { node_id?: unknown }).node_id : undefined;
  if (named !== undefined && named !== nodeId) throw new ApiError(403, "node_id is not the node this token belongs to");
}

export const requireNode: MiddlewareHandler<AppEnv> = async (c, next) => {
  const config = c.var.config;
  // Off the public host name when the nodes have a route of their own (docs: deployment).
  if (config.INTERNAL_HOSTNAME && new URL(c.req.url).hostname !== config.INTERNAL_HOSTNAME) return c.notFound();
  const presented = /^Bearer\s+(.+)$/i.exec(c.req.header("Authorization") ?? "")?.[1] ?? "";
  if (!nodeTokenValid(config, nodeIdOf(c), presented)) throw unauthorized();
  await next();
};
