import { z } from "@hono/zod-openapi";
import { NUMBER_PATTERN } from "./test-calls.ts";

export const DialerSessionRequestSchema = z
  .object({
    caller_id: z
      .string()
      .trim()
      .regex(NUMBER_PATTERN, "caller_id must be 2 to 32 digits, * or #, with an optional leading +")
      .nullable()
      .optional()
      .openapi({
        description: "The caller ID the call shows: one of the account's verified numbers; left out: none (anonymous)",
        example: "+14155550100",
      }),
  })
  .openapi("DialerSessionRequest");
export type DialerSessionRequest = z.infer<typeof DialerSessionRequestSchema>;

export const DialerSessionSchema = z
  .object({
    token: z.string().openapi({
      description: "Single use: the web dialer sends it as X-Dialer-Token on the call's INVITE; the next call needs a new one",
      example: "0195f0a2-6a4e-7c1b-9d3e-2f1a5b6c7d8e.Qm9ndXMgdG9rZW4gZm9yIHRoZSBleGFtcGxlIG9ubHkgMTIzNA",
    }),
    expires_at: z.string().openapi({ format: "date-time", example: "2026-11-25T10:03:00.000Z" }),
    expires_in: z.number().int().openapi({ description: "Seconds the token is good for", example: 180 }),
    websocket_url: z.string().openapi({
      description: "The SIP node's WebSocket listener (RFC 7118, subprotocol sip) to place the call through",
      example: "wss://sip.example.net:7443",
    }),
    sip_domain: z.string().openapi({ description: "The host part of the dialer's SIP URIs", example: "sip.example.net" }),
    caller_id: z.string().nullable().openapi({ description: "The caller ID the call will show; null: anonymous", example: "+14155550100" }),
  })
  .openapi("DialerSession");
export type DialerSession = z.infer<typeof DialerSessionSchema>;
