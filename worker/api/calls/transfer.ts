// POST /calls/{call_id}/transfer: the SIP node carrying an answered call is told, through the
// NodeHub, to transfer it the way the call's destination says (`platform`: the node bridges the
// caller to the target; `refer`: the node asks the caller's side to call the target). The node
// answers at once; how the transfer ends comes back as a call event (transfer_status, _code).
import { createRoute, z } from "@hono/zod-openapi";
import { and, eq } from "drizzle-orm";
import { calls } from "../../../schema/calls.ts";
import type { HubOutcome } from "../../../durable-objects/node-hub.ts";
import type { HubCommand } from "../../../schema/node-api.ts";
import type { Db } from "../../lib/db.ts";
import { ApiError, conflict, notFound, serviceUnavailable } from "../../lib/errors.ts";
import { nowIso } from "../../lib/time.ts";
import { hubFor } from "../../internal/hub.ts";
import { authenticated } from "../auth/access.ts";
import type { Principal } from "../auth/principal.ts";
import type { Api } from "../context.ts";
import { errors, jsonBody, jsonRequest } from "../responses.ts";
import { CallIdParam } from "./schemas.ts";

const TRANSFER_TIMEOUT_MS = 5_000;

export const TransferRequestSchema = z
  .object({
    target: z
      .string()
      .min(1)
      .max(32)
      .regex(/^[0-9*#]+$/, "target must be digits, * and # only")
      .openapi({ example: "14155550199" }),
  })
  .openapi("TransferRequest");

export const TransferSchema = z
  .object({
    status: z.string().openapi({ description: "in_progress: the node has started it; the call's transfer_status follows", example: "in_progress" }),
    target: z.string(),
    mode: z.string().openapi({ example: "platform" }),
  })
  .openapi("Transfer");

type Hub = { command(command: HubCommand, timeoutMs: number, nodeId?: string): Promise<HubOutcome> };

export async function transferCall(db: Db, hub: Hub, principal: Principal, callId: string, target: string) {
  const call = await db
    .select({ id: calls.id, status: calls.status, nodeId: calls.nodeId, transferMode: calls.transferMode })
    .from(calls)
    .where(and(eq(calls.id, callId), eq(calls.customerId, principal.customer.id)))
    .get();
  if (!call) throw notFound("Call not found");
  if (call.status !== "active") throw conflict("only a call that is up can be transferred");
  const mode = call.transferMode === "refer" ? "refer" : "platform";
  const outcome = await hub.command({ type: "transfer", call_id: call.id, target, mode }, TRANSFER_TIMEOUT_MS, call.nodeId ?? undefined);
  if (!outcome.ok) {
    if (outcome.error === "no_node" || outcome.error === "timeout") throw serviceUnavailable("The SIP node carrying the call cannot be reached, retry");
    // The node refused: the call ended meanwhile, or a transfer is already under way.
    throw new ApiError(409, outcome.error);
  }
  await db
    .update(calls)
    .set({ transferTarget: target, transferMode: mode, transferStatus: "in_progress", transferCode: null, transferAt: nowIso(), updatedAt: nowIso() })
    .where(eq(calls.id, call.id));
  return { status: "in_progress", target, mode };
}

const route = createRoute({
  method: "post",
  path: "/calls/{call_id}/transfer",
  tags: ["Calls"],
  summary: "Transfer an answered call to another number (platform bridge or SIP REFER, per the destination)",
  ...authenticated,
  request: { params: CallIdParam, ...jsonRequest(TransferRequestSchema) },
  responses: { 202: jsonBody(TransferSchema, "Transfer started"), ...errors(401, 404, 409, 422, 503) },
});

export function registerCallTransfer(api: Api) {
  api.openapi(route, async (c) =>
    c.json(await transferCall(c.var.db, hubFor(c.env), c.var.principal, c.req.valid("param").call_id, c.req.valid("json").target), 202),
  );
}
