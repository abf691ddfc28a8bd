import { createRoute, z } from "@hono/zod-openapi";
import { authenticated, credentialManagement } from "../auth/access.ts";
import type { Api } from "../context.ts";
import { errors, jsonBody, jsonRequest, noContent } from "../responses.ts";
import { ApiKeySchema, CreateApiKeySchema, CreatedApiKeySchema, KeyIdParam } from "../../resources/api-keys.ts";
import { createApiKey, listApiKeys, revokeApiKey } from "../../services/identity/api-keys.ts";

const tags = ["API keys"];

const listRoute = createRoute({
  method: "get",
  path: "/auth/api-keys",
  tags,
  summary: "The account's API keys (never their secrets)",
  ...authenticated,
  responses: { 200: jsonBody(z.array(ApiKeySchema), "API keys, newest first"), ...errors(401) },
});

const createKeyRoute = createRoute({
  method: "post",
  path: "/auth/api-keys",
  tags,
  summary: "Mint an API key; the secret is in this response only",
  ...credentialManagement,
  request: jsonRequest(CreateApiKeySchema),
  responses: { 201: jsonBody(CreatedApiKeySchema, "Minted"), ...errors(401, 403, 422) },
});

const revokeRoute = createRoute({
  method: "delete",
  path: "/auth/api-keys/{key_id}",
  tags,
  summary: "Revoke an API key",
  ...credentialManagement,
  request: { params: KeyIdParam },
  responses: { ...noContent("Revoked"), ...errors(401, 403, 404) },
});

export function registerApiKeys(api: Api) {
  api.openapi(listRoute, async (c) => c.json(await listApiKeys(c.var.services, c.var.principal), 200));
  api.openapi(createKeyRoute, async (c) => c.json(await createApiKey(c.var.services, c.var.principal, c.req.valid("json").name), 201));
  api.openapi(revokeRoute, async (c) => {
    await revokeApiKey(c.var.services, c.var.principal, c.req.valid("param").key_id);
    return c.body(null, 204);
  });
}
