// POST /customer/destinations/{id}/check: one SIP OPTIONS sent by a connected SIP node through
// the NodeHub, waited for a few seconds at most; the destination's monitor fields say what came back.
import { createRoute } from "@hono/zod-openapi";
import { eq } from "drizzle-orm";
import { destinations } from "../../../schema/network.ts";
import type { HubOutcome } from "../../../durable-objects/node-hub.ts";
import type { HubCommand } from "../../../schema/node-api.ts";
import { nowIso } from "../../lib/time.ts";
import { monitorPatch } from "../../internal/monitor.ts";
import { hubFor } from "../../internal/hub.ts";
import { authenticated } from "../auth/access.ts";
import type { Principal } from "../auth/principal.ts";
import type { Api } from "../context.ts";
import { errors, jsonBody } from "../responses.ts";
import { destinationDeps } from "./routes.ts";
import { DestIdParam, DestinationSchema } from "./schemas.ts";
import { destinationOfAccount, destinationOut, type DestinationDeps } from "./service.ts";

export const CHECK_TIMEOUT_MS = 4_000;

type Hub = { command(command: HubCommand, timeoutMs: number): Promise<HubOutcome> };

const WHY: Record<string, string> = {
  no_node: "no SIP node is connected to send the check",
  timeout: `the SIP node did not report within ${CHECK_TIMEOUT_MS / 1000} s`,
};

export async function checkDestination(deps: DestinationDeps, hub: Hub, principal: Principal, destinationId: string) {
  const row = await destinationOfAccount(deps.db, principal, destinationId);
  const transport = row.transport as "udp" | "tcp" | "tls";
  const outcome = await hub.command({ type: "options", host: row.host, port: row.port, transport }, CHECK_TIMEOUT_MS);
  const at = nowIso();
  let patch: Partial<typeof destinations.$inferSelect>;
  if (!outcome.ok) {
    // Nothing was learnt about the destination itself: its status stays, the reason is shown.
    patch = { monitorLastCheckAt: at, monitorLastError: WHY[outcome.error] ?? outcome.error };
  } else {
    const code = typeof outcome.result.code === "number" ? outcome.result.code : null;
    const rtt = typeof outcome.result.rtt_ms === "number" ? outcome.result.rtt_ms : null;
    const error = typeof outcome.result.error === "string" ? outcome.result.error : null;
    // Any SIP answer, even 404 or 405, shows the endpoint is alive.
    const status = code !== null ? "up" : "down";
    patch = monitorPatch({ destination_id: row.id, status, at, rtt_ms: rtt, code, error }, row.monitorStatus);
    // A destination that answers for the first time has monitoring switched on.
    if (code !== null && row.monitorSupported !== true) patch.monitorEnabled = true;
  }
  patch.updatedAt = at;
  await deps.db.update(destinations).set(patch).where(eq(destinations.id, row.id));
  return destinationOut(deps, { ...row, ...patch });
}

const route = createRoute({
  method: "post",
  path: "/customer/destinations/{dest_id}/check",
  tags: ["Destinations"],
  summary: "Send one SIP OPTIONS now and report the monitor fields (waits 4 s at most)",
  ...authenticated,
  request: { params: DestIdParam },
  responses: { 200: jsonBody(DestinationSchema, "Destination with refreshed monitor fields"), ...errors(401, 404) },
});

export function registerDestinationCheck(api: Api) {
  api.openapi(route, async (c) =>
    c.json(await checkDestination(destinationDeps(c), hubFor(c.env), c.var.principal, c.req.valid("param").dest_id), 200),
  );
}
