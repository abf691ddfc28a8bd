// POST /customer/events (spec: Events rule 5): the portal reports browser activity.
import { z } from "@hono/zod-openapi";

export const MAX_EVENTS_PER_CALL = 50;
export const PORTAL_EVENT_KINDS = ["page_view", "feature_used"] as const;

const PageViewSchema = z.object({
  kind: z.literal("page_view"),
  props: z.object({
    path: z
      .string()
      .trim()
      .min(1)
      .max(1024)
      .openapi({ description: "The portal path; a query string or fragment is dropped before storing", example: "/calls" }),
  }),
});

const FeatureUsedSchema = z.object({
  kind: z.literal("feature_used"),
  props: z.object({
    name: z
      .string()
      .trim()
      .regex(/^[A-Za-z0-9][A-Za-z0-9_.:-]{0,99}$/, "name is a feature key of letters, digits, _ . : - (at most 100)")
      .openapi({ example: "calls.export" }),
  }),
});

export const PortalEventSchema = z.discriminatedUnion("kind", [PageViewSchema, FeatureUsedSchema]).openapi("PortalEvent", {
  description: "page_view with props.path, or feature_used with props.name; any other prop is dropped",
});

export const PortalEventsSchema = z
  .object({
    events: z
      .array(PortalEventSchema)
      .min(1, "events must hold at least one event")
      .max(MAX_EVENTS_PER_CALL, `at most ${MAX_EVENTS_PER_CALL} events per call`),
  })
  .openapi("PortalEvents");

export const PortalEventsResultSchema = z
  .object({ count: z.number().int().openapi({ description: "Events stored", example: 2 }) })
  .openapi("PortalEventsResult");

export type PortalEvents = z.infer<typeof PortalEventsSchema>;
