// POST /webhooks/voice/{token}: ours, called by voice-AI providers (not by customers). The body is
// read as raw text: signatures are over the exact bytes sent.
import { createRoute, z } from "@hono/zod-openapi";
import type { Api } from "../context.ts";
import { errors, jsonBody } from "../responses.ts";
import { receiveVoiceWebhook } from "../../services/webhooks/voice-providers.ts";

const TokenParam = z.object({
  token: z
    .string()
    .min(16)
    .max(128)
    .openapi({ param: { name: "token", in: "path" }, description: "The token of the destination's webhook_url" }),
});

const receiveRoute = createRoute({
  method: "post",
  path: "/webhooks/voice/{token}",
  tags: ["Destinations"],
  summary: "A voice-AI provider's call event for a destination (the destination's webhook_url)",
  description:
    "Our extension: providers post here, not customers. The callback must verify against the destination's webhook_secret in the " +
    "provider's scheme: ElevenLabs (ElevenLabs-Signature t=,v0=), Retell (x-retell-signature v=,d=, keyed with the Retell API key), " +
    "Vapi (X-Vapi-Secret), OpenAI (Standard Webhooks), others an HMAC-SHA256 hex of the body in X-Webhook-Signature or Standard " +
    "Webhooks. The outcome shows on the destination as webhook_last_event_at, webhook_last_status (ok, rejected, invalid) and " +
    "webhook_last_error. The body is any JSON object.",
  request: { params: TokenParam },
  responses: {
    200: jsonBody(z.object({ received: z.literal(true), event: z.string().nullable() }).openapi("VoiceWebhookReceipt"), "Taken"),
    ...errors(401, 404, 422),
  },
});

export function registerVoiceWebhooks(api: Api) {
  api.openapi(receiveRoute, async (c) =>
    c.json(await receiveVoiceWebhook(c.var.services, c.req.valid("param").token, c.req.raw.headers, await c.req.text()), 200),
  );
}
