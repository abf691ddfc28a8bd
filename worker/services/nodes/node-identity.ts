// Which SIP node may act on a call or a test call: the one carrying it. Nodes with a token of
// their own (NODE_TOKENS) are told apart; nodes on the shared NODE_TOKEN are not (worker/internal/
// node-auth.ts authenticates them).
import type { Config } from "../../env.ts";
import { Forbidden } from "../errors.ts";

/** Is `nodeId` a node with a token of its own (listed in NODE_TOKENS)? */
export const isListedNode = (config: Pick<Config, "NODE_TOKENS">, nodeId: unknown): nodeId is string =>
  typeof nodeId === "string" && Object.hasOwn(config.NODE_TOKENS, nodeId);

/**
 * May a request from `requester` (its X-Node-Id, else the node_id it names; null: neither) act on
 * a call or test call `recorded` carries (null: none recorded yet, so any node may, and becomes it)?
 * Only the node recorded may when either of them has a token of its own; nodes on NODE_TOKEN are not
 * told apart from each other (they share one token), so between them nothing is decided.
 */
export function mayActForNode(config: Pick<Config, "NODE_TOKENS">, requester: string | null, recorded: string | null): boolean {
  if (recorded === null || requester === recorded) return true;
  return !isListedNode(config, recorded) && !isListedNode(config, requester);
}

/** Forbidden unless `requester` may act on what `recorded` carries (mayActForNode). */
export function requireRecordedNode(
  config: Pick<Config, "NODE_TOKENS">,
  requester: string | null,
  recorded: string | null,
  what: string,
): void {
  if (!mayActForNode(config, requester, recorded)) throw new Forbidden(`${what} is carried by another node`);
}
