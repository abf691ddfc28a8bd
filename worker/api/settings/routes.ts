import { createRoute } from "@hono/zod-openapi";
import { authenticated, ownerOnly } from "../auth/access.ts";
import type { Api } from "../context.ts";
import { errors, jsonBody, jsonRequest } from "../responses.ts";
import {
  BillingAddressSchema,
  CallFeaturesSchema,
  DataLocationSchema,
  LowBalanceAlertSchema,
  PutBillingAddressSchema,
  PutCallFeaturesSchema,
  PutDataLocationSchema,
  PutLowBalanceAlertSchema,
  PutTaxIdSchema,
  TaxIdSchema,
} from "../../resources/settings.ts";
import {
  getBillingAddress,
  getCallFeatures,
  getDataLocation,
  getLowBalanceAlert,
  getTaxId,
  putBillingAddress,
  putCallFeatures,
  putDataLocation,
  putLowBalanceAlert,
  putTaxId,
} from "../../services/accounts/settings.ts";

const tags = ["Account"];

const getTaxIdRoute = createRoute({
  method: "get",
  path: "/customer/tax-id",
  tags,
  summary: "The Tax ID or VAT number shown on invoices",
  ...authenticated,
  responses: { 200: jsonBody(TaxIdSchema, "Tax ID"), ...errors(401) },
});

const putTaxIdRoute = createRoute({
  method: "put",
  path: "/customer/tax-id",
  tags,
  summary: "Set or clear the Tax ID or VAT number (free text)",
  ...authenticated,
  request: jsonRequest(PutTaxIdSchema),
  responses: { 200: jsonBody(TaxIdSchema, "Tax ID"), ...errors(401, 422) },
});

const getDataLocationRoute = createRoute({
  method: "get",
  path: "/customer/data-location",
  tags,
  summary: "Media storage region and media relay region, and the regions the platform offers",
  ...authenticated,
  responses: { 200: jsonBody(DataLocationSchema, "Data location"), ...errors(401) },
});

const putDataLocationRoute = createRoute({
  method: "put",
  path: "/customer/data-location",
  tags,
  summary: "Change either region (partial); applies to calls from now on",
  description:
    "A region is accepted only where the platform has a media bucket (data_region) or a media relay (media_region); any other answers 422.",
  ...authenticated,
  request: jsonRequest(PutDataLocationSchema),
  responses: { 200: jsonBody(DataLocationSchema, "Data location"), ...errors(401, 422) },
});

const getAlertRoute = createRoute({
  method: "get",
  path: "/customer/low-balance-alert",
  tags,
  summary: "The low-balance e-mail alert",
  ...authenticated,
  responses: { 200: jsonBody(LowBalanceAlertSchema, "Low-balance alert"), ...errors(401) },
});

const putAlertRoute = createRoute({
  method: "put",
  path: "/customer/low-balance-alert",
  tags,
  summary: "Switch the alert on or off, or change its threshold (partial)",
  description:
    "One e-mail to the account's address when the balance falls below the threshold; re-armed when the balance is back at or above it. " +
    "Arms at once when the balance is at or above the new threshold.",
  ...authenticated,
  request: jsonRequest(PutLowBalanceAlertSchema),
  responses: { 200: jsonBody(LowBalanceAlertSchema, "Low-balance alert"), ...errors(401, 422) },
});

const getAddressRoute = createRoute({
  method: "get",
  path: "/customer/billing-address",
  tags,
  summary: "The billing profile and the tax it brings",
  ...authenticated,
  responses: { 200: jsonBody(BillingAddressSchema, "Billing address"), ...errors(401) },
});

const putAddressRoute = createRoute({
  method: "put",
  path: "/customer/billing-address",
  tags,
  summary: "Set the billing profile (replaces it whole)",
  description:
    "Outside Canada or no country: tax exempt. Country CA: HST 13% in ON, 15% in NB, NL, NS and PE; 5% GST in every other province " +
    "and when the province is unset.",
  ...authenticated,
  request: jsonRequest(PutBillingAddressSchema),
  responses: { 200: jsonBody(BillingAddressSchema, "Billing address"), ...errors(401, 422) },
});

const ourExtension = "Our extension: the spec's Account shows `dialer_enabled` but names no way to change it.";

const getCallFeaturesRoute = createRoute({
  method: "get",
  path: "/customer/call-features",
  tags,
  summary: "Whether the web dialer and test calls are switched on",
  description: ourExtension,
  ...authenticated,
  responses: { 200: jsonBody(CallFeaturesSchema, "Call features"), ...errors(401) },
});

const putCallFeaturesRoute = createRoute({
  method: "put",
  path: "/customer/call-features",
  tags,
  summary: "Switch the web dialer or test calls on or off (partial; owner only, not an AI agent)",
  description: `${ourExtension} Off: POST /customer/dialer/session answers 403 dialer_disabled and unspent tokens stop admitting calls; POST /customer/test-calls answers 403 test_calls_disabled.`,
  ...ownerOnly,
  request: jsonRequest(PutCallFeaturesSchema),
  responses: { 200: jsonBody(CallFeaturesSchema, "Call features"), ...errors(401, 403, 422) },
});

export function registerSettings(api: Api) {
  api.openapi(getCallFeaturesRoute, (c) => c.json(getCallFeatures(c.var.principal), 200));
  api.openapi(putCallFeaturesRoute, async (c) => c.json(await putCallFeatures(c.var.services, c.var.principal, c.req.valid("json")), 200));
  api.openapi(getTaxIdRoute, (c) => c.json(getTaxId(c.var.principal), 200));
  api.openapi(putTaxIdRoute, async (c) => c.json(await putTaxId(c.var.services, c.var.principal, c.req.valid("json")), 200));
  api.openapi(getDataLocationRoute, (c) => c.json(getDataLocation(c.var.services, c.var.principal), 200));
  api.openapi(putDataLocationRoute, async (c) => c.json(await putDataLocation(c.var.services, c.var.principal, c.req.valid("json")), 200));
  api.openapi(getAlertRoute, (c) => c.json(getLowBalanceAlert(c.var.principal), 200));
  api.openapi(putAlertRoute, async (c) => c.json(await putLowBalanceAlert(c.var.services, c.var.principal, c.req.valid("json")), 200));
  api.openapi(getAddressRoute, (c) => c.json(getBillingAddress(c.var.principal), 200));
  api.openapi(putAddressRoute, async (c) => c.json(await putBillingAddress(c.var.services, c.var.principal, c.req.valid("json")), 200));
}
