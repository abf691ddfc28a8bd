import { createRoute } from "@hono/zod-openapi";
import {
  CreateTicketMessageSchema,
  CreateTicketSchema,
  TicketDetailSchema,
  TicketIdParam,
  TicketListQuery,
  TicketListSchema,
  TicketMessageSchema,
  TicketSchema,
  UpdateTicketSchema,
} from "../../resources/support-tickets.ts";
import { addTicketMessage, createTicket, getTicket, listTickets, updateTicket } from "../../services/support/tickets.ts";
import { authenticated } from "../auth/access.ts";
import type { Api } from "../context.ts";
import { errors, jsonBody, jsonRequest } from "../responses.ts";

const tags = ["Support"];

const listRoute = createRoute({
  method: "get",
  path: "/support/tickets",
  tags,
  summary: "The account's support tickets, newest first",
  ...authenticated,
  request: { query: TicketListQuery },
  responses: { 200: jsonBody(TicketListSchema, "Ticket list"), ...errors(401, 422) },
});

const createTicketRoute = createRoute({
  method: "post",
  path: "/support/tickets",
  tags,
  summary: "Open a ticket; with `call_id` it disputes that call's verdict",
  description: "The service team is told by e-mail.",
  ...authenticated,
  request: jsonRequest(CreateTicketSchema),
  responses: { 201: jsonBody(TicketSchema, "Ticket"), ...errors(401, 404, 422) },
});

const getRoute = createRoute({
  method: "get",
  path: "/support/tickets/{ticket_id}",
  tags,
  summary: "One ticket with its messages and the disputed call",
  ...authenticated,
  request: { params: TicketIdParam },
  responses: { 200: jsonBody(TicketDetailSchema, "Ticket detail"), ...errors(401, 404, 422) },
});

const updateRoute = createRoute({
  method: "patch",
  path: "/support/tickets/{ticket_id}",
  tags,
  summary: "Reopen or close a ticket",
  description: "closed sets closed_at; open clears it. answered is refused (422): only a reply from support marks a ticket answered.",
  ...authenticated,
  request: { params: TicketIdParam, ...jsonRequest(UpdateTicketSchema) },
  responses: { 200: jsonBody(TicketSchema, "Ticket"), ...errors(401, 404, 422) },
});

const messageRoute = createRoute({
  method: "post",
  path: "/support/tickets/{ticket_id}/messages",
  tags,
  summary: "Write to the service team on a ticket",
  description: "The message is mailed to the service team; a closed or answered ticket is open again.",
  ...authenticated,
  request: { params: TicketIdParam, ...jsonRequest(CreateTicketMessageSchema) },
  responses: { 201: jsonBody(TicketMessageSchema, "Message"), ...errors(401, 404, 422) },
});

export function registerSupportTickets(api: Api) {
  api.openapi(listRoute, async (c) => c.json(await listTickets(c.var.services, c.var.principal, c.req.valid("query")), 200));
  api.openapi(createTicketRoute, async (c) => c.json(await createTicket(c.var.services, c.var.principal, c.req.valid("json")), 201));
  api.openapi(getRoute, async (c) => c.json(await getTicket(c.var.services, c.var.principal, c.req.valid("param").ticket_id), 200));
  api.openapi(updateRoute, async (c) =>
    c.json(await updateTicket(c.var.services, c.var.principal, c.req.valid("param").ticket_id, c.req.valid("json").status), 200),
  );
  api.openapi(messageRoute, async (c) =>
    c.json(await addTicketMessage(c.var.services, c.var.principal, c.req.valid("param").ticket_id, c.req.valid("json").body), 201),
  );
}
