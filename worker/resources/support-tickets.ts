import { z } from "@hono/zod-openapi";
import { TICKET_KINDS, TICKET_MESSAGE_AUTHORS, TICKET_STATUSES } from "../../schema/enums.ts";
import { NARROW_PAGE, pageOf, pageQuery } from "../lib/pagination.ts";
import { CallSchema } from "./calls.ts";

const ts = () => z.string().openapi({ format: "date-time" });

const kind = z.enum(TICKET_KINDS).openapi({ description: "analysis: a dispute of a call's verdict", example: "question" });
const status = z.enum(TICKET_STATUSES).openapi({ example: "open" });
const messageBody = z.string().trim().min(1).max(20_000).openapi({ example: "The verdict on this call looks wrong: it was our own IVR." });

export const TicketSchema = z
  .object({
    id: z.uuid(),
    ticket_no: z.number().int().openapi({ description: "Per account, from 1, without gaps", example: 7 }),
    customer_id: z.uuid(),
    kind,
    subject: z.string(),
    body: z.string().openapi({ description: "The opening message" }),
    call_id: z.uuid().nullable().openapi({ description: "The call whose verdict is disputed" }),
    status,
    created_by: z.string().nullable(),
    closed_at: ts().nullable(),
    created_at: ts(),
    updated_at: ts(),
    message_count: z.number().int().openapi({ description: "Messages after the opening one" }),
  })
  .openapi("SupportTicket");

export const TicketMessageSchema = z
  .object({
    id: z.uuid(),
    author_kind: z.enum(TICKET_MESSAGE_AUTHORS).openapi({ description: "customer: a user of the account; support: the service team" }),
    author_label: z.string().nullable(),
    body: z.string(),
    created_at: ts(),
  })
  .openapi("SupportTicketMessage");

export const TicketDetailSchema = TicketSchema.extend({
  messages: z.array(TicketMessageSchema).openapi({ description: "Oldest first" }),
  // A union, not CallSchema.nullable(): the latter renders as allOf [Call, {type: [object, null]}], which refuses null.
  call: z.union([CallSchema, z.null()]).openapi({ description: "The call, or null when there is none or it is gone" }),
}).openapi("SupportTicketDetail");

export const TicketListSchema = pageOf(TicketSchema, "SupportTicketList");

export const TicketListQuery = pageQuery(NARROW_PAGE).extend({ status: status.optional(), kind: kind.optional() });

export const CreateTicketSchema = z
  .object({
    kind: kind.optional().openapi({ description: "Default question; analysis when `call_id` is given" }),
    subject: z.string().trim().min(1).max(200).openapi({ example: "Verdict on a call from our IVR" }),
    body: messageBody,
    call_id: z.uuid().nullable().optional().openapi({ description: "Disputes this call's verdict" }),
  })
  .openapi("CreateSupportTicket");

export const UpdateTicketSchema = z
  .object({ status: status.openapi({ description: "open or closed; answered is set only by a reply from support (422)" }) })
  .openapi("UpdateSupportTicket");

export const CreateTicketMessageSchema = z.object({ body: messageBody }).openapi("CreateSupportTicketMessage");

export const TicketIdParam = z.object({ ticket_id: z.uuid().openapi({ param: { name: "ticket_id", in: "path" } }) });

export type TicketListInput = z.infer<typeof TicketListQuery>;
export type CreateTicket = z.infer<typeof CreateTicketSchema>;
