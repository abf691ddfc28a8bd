import { createRoute } from "@hono/zod-openapi";
import { authenticated, ownerOnly } from "../auth/access.ts";
import type { Api } from "../context.ts";
import { errors, jsonBody, jsonRequest } from "../responses.ts";
import { ProfileSchema, ProfileUpdateSchema, TermsAcceptanceSchema } from "../../resources/profile.ts";
import { acceptTerms, getProfile, updateProfile } from "../../services/accounts/profile.ts";

const tags = ["Account"];

const getRoute = createRoute({
  method: "get",
  path: "/customer/profile",
  tags,
  summary: "Qualification answers",
  ...authenticated,
  responses: { 200: jsonBody(ProfileSchema, "Profile"), ...errors(401) },
});

const putRoute = createRoute({
  method: "put",
  path: "/customer/profile",
  tags,
  summary: "Update some answers, or skip (stamps profile_completed_at only)",
  ...authenticated,
  request: jsonRequest(ProfileUpdateSchema),
  responses: { 200: jsonBody(ProfileSchema, "Profile"), ...errors(401, 422) },
});

const termsRoute = createRoute({
  method: "post",
  path: "/customer/terms/accept",
  tags,
  summary: "Accept the Terms in force (the owner, signed into the portal)",
  ...ownerOnly,
  responses: { 200: jsonBody(TermsAcceptanceSchema, "Accepted"), ...errors(401, 403) },
});

export function registerProfile(api: Api) {
  api.openapi(getRoute, (c) => c.json(getProfile(c.var.principal), 200));
  api.openapi(putRoute, async (c) => c.json(await updateProfile(c.var.services, c.var.principal, c.req.valid("json")), 200));
  api.openapi(termsRoute, async (c) => c.json(await acceptTerms(c.var.services, c.var.principal), 200));
}
