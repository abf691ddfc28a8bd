// Which SIP node is calling the internal API. Each node has its own token (NODE_TOKENS,
// "node-id:token" pairs) and names itself in X-Node-Id (the hub's WebSocket: ?node_id=); removing
// its pair revokes it without touching the others. A node not listed there presents NODE_TOKEN,
// the single token of local development (leave it unset in production). A listed node's own token
// is the only one it may use, and a node acts only on the calls and test calls it carries
// (worker/services/nodes/node-identity.ts, mayActForNode).
import type { Context, MiddlewareHandler } from "hono";
import type { AppEnv } from "../http/app-env.ts";
import type { Config } from "../env.ts";
import { timingSafeEqual } from "../lib/crypto.ts";
import { ApiError, unauthorized } from "../lib/errors.ts";
import { isListedNode } from "../services/nodes/node-identity.ts";

const encoder = new TextEncoder();

/** The node id a request names: X-Node-Id, or node_id in the query (a WebSocket upgrade). */
export const nodeIdOf = (c: Context) => c.req.header("X-Node-Id") ?? c.req.query("node_id") ?? null;

/** Does `presented` authenticate the node `nodeId` (null: unnamed)? */
export function nodeTokenValid(config: Pick<Config, "NODE_TOKEN" | "NODE_TOKENS">, nodeId: string | null, presented: string): boolean {
  const own = nodeId !== null && Object.hasOwn(config.NODE_TOKENS, nodeId) ? config.NODE_TOKENS[nodeId] : undefined;
  const expected = own ?? config.NODE_TOKEN;
  return expected !== undefined && timingSafeEqual(encoder.encode(presented), encoder.encode(expected));
}

const NOT_THIS_NODE = "node_id is not the node this token belongs to";

/**
 * A node with a token of its own speaks only for itself: a body naming another node_id (admitting
 * or reporting calls as another node, ending its calls) is refused. And only that node speaks for
 * it: a body naming a listed node must come with X-Node-Id naming it (then requireNode checked that
 * node's own token), so NODE_TOKEN without X-Node-Id cannot name one. Nodes on NODE_TOKEN are not
 * told apart, so nothing binds them to each other.
 */
export function requireSameNode(c: Context<AppEnv>, body: unknown): void {
  const nodeId = nodeIdOf(c);
  const named = typeof body === "object" && body !== null ? (body as { node_id?: unknown }).node_id : undefined;
  if (isListedNode(c.var.config, nodeId) && named !== undefined && named !== nodeId) throw new ApiError(403, NOT_THIS_NODE);
  if (isListedNode(c.var.config, named) && named !== nodeId) throw new ApiError(403, NOT_THIS_NODE);
}

export const requireNode: MiddlewareHandler<AppEnv> = async (c, next) => {
  const config = c.var.config;
  // Off the public host name when the nodes have a route of their own (docs: deployment).
  if (config.INTERNAL_HOSTNAME && new URL(c.req.url).hostname !== config.INTERNAL_HOSTNAME) return c.notFound();
  const presented = /^Bearer\s+(.+)$/i.exec(c.req.header("Authorization") ?? "")?.[1] ?? "";
  if (!nodeTokenValid(config, nodeIdOf(c), presented)) throw unauthorized();
  await next();
};
