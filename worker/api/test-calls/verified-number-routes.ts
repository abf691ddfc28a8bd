// /customer/verified-numbers: our extension of the published API, which names verified numbers
// (test-call caller IDs, the numbers the scam sample rings) without a way to add them.
import { createRoute, z } from "@hono/zod-openapi";
import { authenticated } from "../auth/access.ts";
import type { Api } from "../context.ts";
import { errors, jsonBody, jsonRequest, noContent } from "../responses.ts";
import { CreateVerifiedNumberSchema, VerifiedNumberIdParam, VerifiedNumberSchema, VerifyNumberSchema } from "../../resources/test-calls.ts";
import {
  addVerifiedNumber,
  callVerifiedNumber,
  deleteVerifiedNumber,
  listVerifiedNumbers,
  verifyNumber,
} from "../../services/placed-calls/verified-numbers.ts";

const tags = ["Test calls"];
const EXTENSION = "Our extension of the published API.";

const listRoute = createRoute({
  method: "get",
  path: "/customer/verified-numbers",
  tags,
  summary: "The account's caller IDs, verified or waiting for their code, newest first",
  description: EXTENSION,
  ...authenticated,
  responses: { 200: jsonBody(z.array(VerifiedNumberSchema), "Numbers"), ...errors(401) },
});

const addRoute = createRoute({
  method: "post",
  path: "/customer/verified-numbers",
  tags,
  summary: "Add a number: the platform calls it through its own route and speaks a six-digit code",
  description:
    `${EXTENSION} The code is good for ten minutes and five wrong tries; a number is called at most three times an hour. ` +
    "A number the account already added is refused (409). Whoever answers the code holds the number: proving a number another " +
    "account verified takes it over, and that account's owner is told by e-mail. The call is not charged and leaves no call record.",
  ...authenticated,
  request: jsonRequest(CreateVerifiedNumberSchema),
  responses: { 201: jsonBody(VerifiedNumberSchema, "Added; the verification call is on its way"), ...errors(401, 403, 409, 422, 429) },
});

const verifyRoute = createRoute({
  method: "post",
  path: "/customer/verified-numbers/{number_id}/verify",
  tags,
  summary: "Enter the code the platform spoke",
  description: `${EXTENSION} 422 naming code: wrong_code, or code_expired (ask for a new call).`,
  ...authenticated,
  request: { params: VerifiedNumberIdParam, ...jsonRequest(VerifyNumberSchema) },
  responses: { 200: jsonBody(VerifiedNumberSchema, "Verified"), ...errors(401, 404, 409, 422) },
});

const callRoute = createRoute({
  method: "post",
  path: "/customer/verified-numbers/{number_id}/call",
  tags,
  summary: "Call the number again with a new code (the previous one stops working)",
  description: EXTENSION,
  ...authenticated,
  request: { params: VerifiedNumberIdParam },
  responses: { 200: jsonBody(VerifiedNumberSchema, "The call is on its way"), ...errors(401, 403, 404, 409, 429) },
});

const deleteRoute = createRoute({
  method: "delete",
  path: "/customer/verified-numbers/{number_id}",
  tags,
  summary: "Remove a number; test calls waiting for confirmation with it as caller ID are then refused (422)",
  description: EXTENSION,
  ...authenticated,
  request: { params: VerifiedNumberIdParam },
  responses: { ...noContent("Removed"), ...errors(401, 404) },
});

export function registerVerifiedNumbers(api: Api) {
  api.openapi(listRoute, async (c) => c.json(await listVerifiedNumbers(c.var.services, c.var.principal), 200));
  api.openapi(addRoute, async (c) => c.json(await addVerifiedNumber(c.var.services, c.var.principal, c.req.valid("json")), 201));
  api.openapi(verifyRoute, async (c) =>
    c.json(await verifyNumber(c.var.services, c.var.principal, c.req.valid("param").number_id, c.req.valid("json").code), 200),
  );
  api.openapi(callRoute, async (c) =>
    c.json(await callVerifiedNumber(c.var.services, c.var.principal, c.req.valid("param").number_id), 200),
  );
  api.openapi(deleteRoute, async (c) => {
    await deleteVerifiedNumber(c.var.services, c.var.principal, c.req.valid("param").number_id);
    return c.body(null, 204);
  });
}
