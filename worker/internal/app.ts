// The internal node API under /internal: what SIP nodes call (each with its own bearer token,
// node-auth.ts). It is not in
// the public OpenAPI document; its requests and answers are the zod schemas of schema/node-api.ts.
import { Hono, type Context } from "hono";
import type { z } from "zod";
import { AdmitRequest, CallReport, CliArrival, CliArrivalEnd, MonitorResults, TestCallProgress } from "../../schema/node-api.ts";
import type { AppEnv } from "../http/app-env.ts";
import { ApiError } from "../lib/errors.ts";
import { issuesOf } from "../lib/validation.ts";
import { admitCall } from "../services/nodes/admission.ts";
import { reportCalls } from "../services/nodes/call-report.ts";
import { hubFor } from "../lib/durable-objects.ts";
import { uploadMedia } from "./media-upload.ts";
import { nodeIdOf, requireNode, requireSameNode } from "./node-auth.ts";
import { monitorTargets, recordMonitorResults } from "../services/trunk/destination-monitor.ts";
import { applyTestCallProgress } from "../services/placed-calls/test-calls.ts";
import { arrivalEnded, receiveArrival } from "../services/cli-checks/arrivals.ts";
import { testCallProgressed } from "../services/cli-checks/checks.ts";
import { requireTestCallNode } from "../services/nodes/test-call-node.ts";
import { whitelistSnapshot } from "../services/nodes/whitelist-snapshot.ts";

async function body<T extends z.ZodType>(c: Context<AppEnv>, schema: T): Promise<z.infer<T>> {
  const json: unknown = await c.req.json().catch(() => {
    throw new ApiError(422, [{ loc: ["body"], msg: "Malformed JSON in request body", type: "json_invalid" }]);
  });
  requireSameNode(c, json);
  const parsed = schema.safeParse(json);
  if (!parsed.success) throw new ApiError(422, issuesOf(parsed.error as never, "json"));
  return parsed.data;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

function uuidOf(id: string, what: string): string {
  if (!UUID.test(id)) throw new ApiError(404, `${what} not found`);
  return id;
}

export function newInternalApp() {
  const app = new Hono<AppEnv>();
  app.use("*", requireNode);

  app.post("/calls/admit", async (c) => c.json(await admitCall(c.var.services, await body(c, AdmitRequest))));
  app.post("/calls/report", async (c) => c.json(await reportCalls(c.var.services, await body(c, CallReport))));
  // The body is the file itself, streamed into R2 (see media-upload.ts); only from the call's node.
  app.put("/calls/:call_id/media/:name", async (c) =>
    c.json(
      await uploadMedia(c.var.services, c.req.param("call_id"), c.req.param("name"), c.req.raw, c.req.query("customer_id"), nodeIdOf(c)),
    ),
  );
  app.get("/whitelist", async (c) => c.json(await whitelistSnapshot(c.var.services, Number(c.req.query("since") ?? -1))));
  app.get("/monitor/destinations", async (c) => c.json(await monitorTargets(c.var.services)));
  app.post("/monitor/results", async (c) => {
    await recordMonitorResults(c.var.services, (await body(c, MonitorResults)).results);
    return c.body(null, 204);
  });
  // A test call moved on (answers its status now, so a node learns of a cancel it missed); only
  // from the node placing it.
  app.post("/test-calls/:test_call_id/progress", async (c) => {
    const id = uuidOf(c.req.param("test_call_id"), "test call");
    const progress = await body(c, TestCallProgress);
    await requireTestCallNode(c.var.services, id, nodeIdOf(c) ?? progress.node_id);
    const answer = await applyTestCallProgress(c.var.services, id, progress);
    // A CLI check's call: its timing and quality, and its result once the call ended.
    await testCallProgressed(c.var.services, id, progress);
    return c.json(answer);
  });
  // The hosted-number listener: a call reached a number the platform holds (answered or refused by
  // the reply), and later how the answered one went.
  app.post("/cli/arrivals", async (c) => c.json(await receiveArrival(c.var.services, await body(c, CliArrival))));
  app.post("/cli/arrivals/:arrival_id/end", async (c) => {
    await arrivalEnded(c.var.services, uuidOf(c.req.param("arrival_id"), "arrival"), await body(c, CliArrivalEnd));
    return c.body(null, 204);
  });
  // A SIP node's control socket, held by the region's NodeHub.
  app.get("/hub", async (c) => {
    if (c.req.header("Upgrade")?.toLowerCase() !== "websocket") throw new ApiError(426, "Upgrade to a WebSocket");
    return hubFor(c.env).fetch(c.req.raw);
  });
  return app;
}
