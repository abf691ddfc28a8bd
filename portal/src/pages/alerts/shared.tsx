// What the alerts page's sections share: their queries' keys, the account's channels (rules name
// them), how a channel is named, a list typed as text (recipients, categories), and how a
// delivery's result reads.
import { useQuery } from "@tanstack/react-query";
import { api, must, type Schemas } from "../../api/client.ts";
import { words } from "../../lib/format.ts";

export type AlertRule = Schemas["AlertRule"];
export type AlertChannel = Schemas["AlertChannel"];
export type AlertTestResult = Schemas["AlertTestResult"];
export type WebhookDelivery = Schemas["WebhookDelivery"];

export const keys = {
  rules: ["alerts", "rules"],
  channels: ["alerts", "channels"],
  webhook: ["alerts", "webhook"],
  deliveries: ["alerts", "webhook-deliveries"],
} as const;

export const useChannels = () => useQuery({ queryKey: keys.channels, queryFn: () => must(api.GET("/customer/alert-channels")) });

export const CHANNEL_KINDS: Record<AlertChannel["kind"], string> = { slack: "Slack", webhook: "JSON webhook" };

/** A channel as people know it: its label, else its kind and host. */
export const channelName = (c: Pick<AlertChannel, "label" | "kind" | "url_host">) =>
  c.label || `${CHANNEL_KINDS[c.kind] ?? words(c.kind)}${c.url_host ? ` (${c.url_host})` : ""}`;

/** Text with one value per line or separated by commas: the list, empty entries dropped. */
export const listOf = (text: string) =>
  text
    .split(/[\s,;]+/)
    .map((v) => v.trim())
    .filter(Boolean);

/** A delivery's error code in words ("mail_not_configured": "mail not configured"). */
export const problem = (error: string | null | undefined) => (error ? words(error) : null);

/** The receiver's answer: "HTTP 503", or what kept it from answering ("url private address"). */
export const answerOf = (statusCode: number | null | undefined, error: string | null | undefined) =>
  [statusCode ? `HTTP ${statusCode}` : "", error && error !== `http_${statusCode}` ? words(error) : ""].filter(Boolean).join(", ") || "—";
