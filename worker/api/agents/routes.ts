import { createRoute } from "@hono/zod-openapi";
import { authenticated } from "../auth/access.ts";
import type { Api } from "../context.ts";
import { errors, jsonBody, noContent } from "../responses.ts";
import { AuthorizedAgentList, GrantIdParam } from "../../resources/oauth.ts";
import { listAgents, revokeAgent } from "../../services/oauth/grants.ts";

const tags = ["Authorised agents"];

const listRoute = createRoute({
  method: "get",
  path: "/customer/agents",
  tags,
  summary: "The AI agents authorised on the account (an owner sees everyone's, a member their own), newest first",
  ...authenticated,
  responses: { 200: jsonBody(AuthorizedAgentList, "Agents whose authorization stands"), ...errors(401, 403) },
});

const revokeRoute = createRoute({
  method: "delete",
  path: "/customer/agents/{grant_id}",
  tags,
  summary: "Revoke an agent: its refresh token and every access token it holds stop working at once",
  description: "An owner may revoke any agent of the account, a member only the agents they authorised themselves (another's answers 404).",
  ...authenticated,
  request: { params: GrantIdParam },
  responses: { ...noContent("Revoked"), ...errors(401, 403, 404) },
});

export function registerAgents(api: Api) {
  api.openapi(listRoute, async (c) => c.json(await listAgents(c.var.services, c.var.principal), 200));
  api.openapi(revokeRoute, async (c) => {
    await revokeAgent(c.var.services, c.var.principal, c.req.valid("param").grant_id);
    return c.body(null, 204);
  });
}
