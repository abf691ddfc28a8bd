import { createRoute, z } from "@hono/zod-openapi";
import { authenticated } from "../auth/access.ts";
import type { Api } from "../context.ts";
import { errors, jsonBody, jsonRequest, noContent } from "../responses.ts";
import {
  CreateIpEntrySchema,
  INGRESS_TRANSPORTS,
  IpEntrySchema,
  IpIdParam,
  NetworkInfoSchema,
  UpdateIpEntrySchema,
  VerifyIpEntrySchema,
} from "../../resources/whitelist.ts";
import { createIpEntry, deleteIpEntry, listIpEntries, updateIpEntry, verifyIpEntry } from "../../services/trunk/whitelist.ts";

const tags = ["Trunk"];

const networkInfoRoute = createRoute({
  method: "get",
  path: "/customer/network-info",
  tags,
  summary: "Where to send calls: the ingress address, port and transports",
  ...authenticated,
  responses: { 200: jsonBody(NetworkInfoSchema, "Network info"), ...errors(401) },
});

const listRoute = createRoute({
  method: "get",
  path: "/customer/ips",
  tags,
  summary: "Whitelisted source addresses, newest first",
  ...authenticated,
  responses: { 200: jsonBody(z.array(IpEntrySchema), "IP entries"), ...errors(401) },
});

const createIpRoute = createRoute({
  method: "post",
  path: "/customer/ips",
  tags,
  summary: "Whitelist a source address or range",
  description:
    "A range may overlap the account's own entries (one per sub-customer, told apart by dial_prefix), " +
    "never a range registered to another account (409). With `contest` (our extension) a range over another " +
    "account's unverified entry is made but admits calls only once verified (POST /customer/ips/{ip_id}/verify). " +
    "At most 100 entries; " +
    "whitelist changes are limited to 30 a minute (429).",
  ...authenticated,
  request: jsonRequest(CreateIpEntrySchema),
  responses: { 201: jsonBody(IpEntrySchema, "Whitelisted"), ...errors(401, 404, 409, 422, 429, 503) },
});

const verifyIpRoute = createRoute({
  method: "post",
  path: "/customer/ips/{ip_id}/verify",
  tags,
  summary: "Prove control of the range (our extension)",
  description:
    "Send a SIP OPTIONS to the ingress from an address of the range: our 200 carries a code in X-Call-Shield-Proof, " +
    "which only a receiver at that address can read. Entering it here verifies the entry: it admits calls whatever its " +
    "width, and other accounts' unverified overlapping entries stop admitting calls (their owners are told by mail). " +
    "422 when the code does not match; 409 when another account verified an overlapping range first.",
  ...authenticated,
  request: { params: IpIdParam, ...jsonRequest(VerifyIpEntrySchema) },
  responses: { 200: jsonBody(IpEntrySchema, "Verified"), ...errors(401, 404, 409, 422, 429, 503) },
});

const updateIpRoute = createRoute({
  method: "patch",
  path: "/customer/ips/{ip_id}",
  tags,
  summary: "Change an entry's label, dial prefix, destination or enabled flag in place",
  description: "The CIDR itself cannot be changed: delete the entry and add the new range.",
  ...authenticated,
  request: { params: IpIdParam, ...jsonRequest(UpdateIpEntrySchema) },
  responses: { 200: jsonBody(IpEntrySchema, "Changed"), ...errors(401, 404, 409, 422, 429, 503) },
});

const deleteIpRoute = createRoute({
  method: "delete",
  path: "/customer/ips/{ip_id}",
  tags,
  summary: "Remove a whitelisted address; the range is free for others at once",
  ...authenticated,
  request: { params: IpIdParam },
  responses: { ...noContent("Removed"), ...errors(401, 404, 429, 503) },
});

export function registerWhitelist(api: Api) {
  api.openapi(networkInfoRoute, (c) =>
    c.json({ ingress_host: c.var.config.INGRESS_HOST, ingress_port: c.var.config.INGRESS_PORT, transports: INGRESS_TRANSPORTS }, 200),
  );
  api.openapi(listRoute, async (c) => c.json(await listIpEntries(c.var.services, c.var.principal), 200));
  api.openapi(createIpRoute, async (c) => c.json(await createIpEntry(c.var.services, c.var.principal, c.req.valid("json")), 201));
  api.openapi(updateIpRoute, async (c) =>
    c.json(await updateIpEntry(c.var.services, c.var.principal, c.req.valid("param").ip_id, c.req.valid("json")), 200),
  );
  api.openapi(verifyIpRoute, async (c) =>
    c.json(await verifyIpEntry(c.var.services, c.var.principal, c.req.valid("param").ip_id, c.req.valid("json")), 200),
  );
  api.openapi(deleteIpRoute, async (c) => {
    await deleteIpEntry(c.var.services, c.var.principal, c.req.valid("param").ip_id);
    return c.body(null, 204);
  });
}
