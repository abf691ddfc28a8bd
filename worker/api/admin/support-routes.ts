// The service team's side of support tickets: the queue across accounts and replies, for
// platform administrators signed in in person (the identity impersonation uses).
import { createRoute } from "@hono/zod-openapi";
import {
  CreateTicketMessageSchema,
  TicketIdParam,
  TicketListQuery,
  TicketListSchema,
  TicketMessageSchema,
} from "../../resources/support-tickets.ts";
import { listAllTickets, replyAsSupport } from "../../services/support/tickets.ts";
import { authenticated } from "../auth/access.ts";
import type { Api } from "../context.ts";
import { errors, jsonBody, jsonRequest } from "../responses.ts";

const tags = ["Administration"];

const queueRoute = createRoute({
  method: "get",
  path: "/admin/support/tickets",
  tags,
  summary: "Every account's support tickets, newest first (platform administrators only)",
  ...authenticated,
  request: { query: TicketListQuery },
  responses: { 200: jsonBody(TicketListSchema, "Ticket list"), ...errors(401, 403, 422) },
});

const replyRoute = createRoute({
  method: "post",
  path: "/admin/support/tickets/{ticket_id}/messages",
  tags,
  summary: "Reply to a ticket as the service team (platform administrators only)",
  description: "Marks the ticket answered and mails the reply to the user who opened it.",
  ...authenticated,
  request: { params: TicketIdParam, ...jsonRequest(CreateTicketMessageSchema) },
  responses: { 201: jsonBody(TicketMessageSchema, "Reply"), ...errors(401, 403, 404, 422) },
});

export function registerSupportDesk(api: Api) {
  api.openapi(queueRoute, async (c) => c.json(await listAllTickets(c.var.services, c.var.principal, c.req.valid("query")), 200));
  api.openapi(replyRoute, async (c) =>
    c.json(await replyAsSupport(c.var.services, c.var.principal, c.req.valid("param").ticket_id, c.req.valid("json").body), 201),
  );
}
