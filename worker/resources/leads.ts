import { z } from "@hono/zod-openapi";

const optionalText = (max: number) => z.string().trim().max(max).nullable().optional();

export const MAX_ATTRIBUTION_KEYS = 20;

export const LeadSchema = z
  .object({
    name: z.string().trim().min(1).max(200).openapi({ example: "Grace Hopper" }),
    email: z.email().max(254).openapi({ example: "grace@carrier.example" }),
    company: optionalText(200).openapi({ example: "Northwind Telecom" }),
    platform: optionalText(200).openapi({ description: "Switch or platform in use", example: "Kamailio" }),
    volume: optionalText(200).openapi({ description: "Expected call volume", example: "2M minutes a month" }),
    message: optionalText(5000),
    page: optionalText(500).openapi({ description: "Where on the site the form was sent from", example: "/pricing" }),
    attribution: z
      .record(z.string().max(64), z.union([z.string().max(500), z.number(), z.boolean(), z.null()]))
      .refine((value) => Object.keys(value).length <= MAX_ATTRIBUTION_KEYS, `at most ${MAX_ATTRIBUTION_KEYS} keys`)
      .nullable()
      .optional()
      .openapi({ description: "Campaign parameters (utm_source and the like)", example: { utm_source: "newsletter" } }),
    website: z.string().max(500).nullable().optional().openapi({ description: "Leave empty (a field only bots fill in)" }),
  })
  .openapi("Lead");

export const LeadAcceptedSchema = z
  .object({ accepted: z.boolean().openapi({ example: true }) })
  .openapi("LeadAccepted", { description: "The request was received; the service team will be in touch" });

export type LeadInput = z.infer<typeof LeadSchema>;
