// What an alert says, in each form it is sent: an e-mail, a Slack Block Kit message (within
// Slack's limits: 50 blocks, header 150 characters, section text 3,000, 10 fields of 2,000 each,
// 10 context elements, button text 75, URL 3,000), and the generic JSON webhook body.
import { verdictWire, type VerdictFacts } from "../analysis/verdict-wire.ts";
import type { CallScreening } from "../calls/screening.ts";

export type AlertFacts = {
  rule: { id: string; name: string; trigger: string };
  call: {
    id: string;
    ani: string | null;
    dialed: string | null;
    startedAt: string;
    durationSec: number | null;
    mos: number | null;
    subCustomer: string | null;
  };
  verdict: (VerdictFacts & { red_flags: string[] }) | null;
  /** What screening found before answer; absent or its fields null when the call was not screened. */
  screening?: CallScreening;
  /** Where the call is seen in the API (sign-in needed). */
  callUrl: string;
};

export const SLACK_LIMITS = {
  blocks: 50,
  headerText: 150,
  sectionText: 3_000,
  fields: 10,
  fieldText: 2_000,
  contextElements: 10,
  buttonText: 75,
  url: 3_000,
  fallbackText: 40_000,
} as const;

const cut = (text: string, max: number) => (text.length <= max ? text : `${text.slice(0, max - 1)}…`);

/** The flags screening raised, as "calls_per_minute (refuse)". */
const flagsOf = (f: AlertFacts) => (f.screening?.screening?.flags ?? []).filter((flag) => flag.action !== "off");

function headline(f: AlertFacts): string {
  const from = f.call.ani ?? "an unknown number";
  if (f.rule.trigger === "quality") return `Call quality alert: MOS ${f.call.mos ?? "?"} on a call from ${from}`;
  if (f.rule.trigger === "screening") {
    const flags = flagsOf(f).map((flag) => `${flag.rule} (${flag.action})`);
    const identity = f.screening?.identity_status ? `caller ID ${f.screening.identity_status}` : "";
    return `Screening alert: ${[...flags, identity].filter(Boolean).join(", ") || "screened call"} from ${from}`;
  }
  return `Fraud alert: ${f.verdict?.title ?? f.verdict?.category ?? "suspicious call"} (${f.verdict?.probability ?? "?"}%) from ${from}`;
}

/** The screening's lines of an e-mail: the identity, then each flag with what it saw. */
function screeningLines(f: AlertFacts): string[] {
  const s = f.screening;
  if (!s?.identity_status && !flagsOf(f).length) return [];
  const identity = s?.identity_status
    ? [
        `Caller ID: ${s.identity_status}${s.identity_reason ? ` (${s.identity_reason})` : ""}${s.attestation ? `, attestation ${s.attestation}` : ""}`,
      ]
    : [];
  const flags = flagsOf(f).map((flag) => `- ${flag.rule} (${flag.action}): ${flag.detail}`);
  const action = s?.screening?.action ? [`Admission: ${s.screening.action} by ${s.screening.rule}`] : [];
  return ["", "Screening before answer:", ...identity, ...flags, ...action];
}

export function alertSubject(f: AlertFacts): string {
  return cut(`[Call Shield] ${headline(f)}`, 200);
}

/** Plain-text e-mail body; `notes` are lines about attachments left out for size. */
export function alertEmailText(f: AlertFacts, notes: string[] = []): string {
  const v = f.verdict;
  const lines = [
    headline(f),
    "",
    `Rule: ${f.rule.name}`,
    `Caller: ${f.call.ani ?? "unknown"}`,
    `Dialed: ${f.call.dialed ?? "unknown"}`,
    `Started: ${f.call.startedAt}`,
    ...(f.call.durationSec !== null ? [`Duration: ${f.call.durationSec} s`] : []),
    ...(f.call.subCustomer ? [`Sub-customer: ${f.call.subCustomer}`] : []),
    ...(f.call.mos !== null ? [`MOS: ${f.call.mos}`] : []),
    ...screeningLines(f),
    ...(v
      ? [
          "",
          `Verdict: ${v.recommendation}, probability ${v.probability}%, category ${v.category}`,
          ...(v.entity ? [`Claimed entity: ${v.entity}`] : []),
          ...(v.summary ? ["", v.summary] : []),
          ...(v.red_flags.length ? ["", "Red flags:", ...v.red_flags.map((flag) => `- ${flag}`)] : []),
        ]
      : []),
    "",
    `Call: ${f.callUrl}`,
    ...(notes.length ? ["", ...notes] : []),
  ];
  return lines.join("\n");
}

/** Slack mrkdwn treats &, < and > as markup. */
const escapeSlack = (text: string) => text.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;");

const field = (name: string, value: string) => ({ type: "mrkdwn", text: cut(`*${name}*\n${escapeSlack(value)}`, SLACK_LIMITS.fieldText) });

export function slackAlert(f: AlertFacts) {
  const v = f.verdict;
  const fields = [
    field("Caller", f.call.ani ?? "unknown"),
    field("Dialed", f.call.dialed ?? "unknown"),
    ...(v ? [field("Probability", `${v.probability}%`), field("Recommendation", v.recommendation), field("Category", v.category)] : []),
    ...(v?.entity ? [field("Claimed entity", v.entity)] : []),
    ...(f.call.mos !== null ? [field("MOS", String(f.call.mos))] : []),
    field("Started", f.call.startedAt),
    ...(f.call.subCustomer ? [field("Sub-customer", f.call.subCustomer)] : []),
  ].slice(0, SLACK_LIMITS.fields);
  const blocks: unknown[] = [
    { type: "header", text: { type: "plain_text", text: cut(headline(f), SLACK_LIMITS.headerText), emoji: true } },
    { type: "section", fields },
  ];
  if (v?.summary) blocks.push({ type: "section", text: { type: "mrkdwn", text: cut(escapeSlack(v.summary), SLACK_LIMITS.sectionText) } });
  const screened = flagsOf(f).map((flag) => `• ${escapeSlack(`${flag.rule} (${flag.action}): ${flag.detail}`)}`);
  if (screened.length) {
    blocks.push({ type: "section", text: { type: "mrkdwn", text: cut(`*Screening*\n${screened.join("\n")}`, SLACK_LIMITS.sectionText) } });
  }
  if (v?.red_flags.length) {
    const flags = v.red_flags.map((flag) => `• ${escapeSlack(flag)}`).join("\n");
    blocks.push({ type: "section", text: { type: "mrkdwn", text: cut(`*Red flags*\n${flags}`, SLACK_LIMITS.sectionText) } });
  }
  blocks.push({
    type: "context",
    elements: [{ type: "mrkdwn", text: cut(`Rule: ${escapeSlack(f.rule.name)} · call ${f.call.id}`, SLACK_LIMITS.fieldText) }],
  });
  if (f.callUrl.length <= SLACK_LIMITS.url) {
    blocks.push({ type: "actions", elements: [{ type: "button", text: { type: "plain_text", text: "Open the call" }, url: f.callUrl }] });
  }
  return { text: cut(headline(f), SLACK_LIMITS.fallbackText), blocks };
}

/** The generic JSON webhook's body. */
export function jsonAlert(f: AlertFacts, at: string) {
  const v = f.verdict;
  return {
    type: "alert",
    sent_at: at,
    rule: { id: f.rule.id, name: f.rule.name, trigger: f.rule.trigger },
    call: {
      id: f.call.id,
      ani: f.call.ani,
      dialed: f.call.dialed,
      started_at: f.call.startedAt,
      duration_sec: f.call.durationSec,
      mos: f.call.mos,
      sub_customer: f.call.subCustomer,
      url: f.callUrl,
      attestation: f.screening?.attestation ?? null,
      identity_status: f.screening?.identity_status ?? null,
      identity_reason: f.screening?.identity_reason ?? null,
    },
    screening: f.screening?.screening ?? null,
    verdict: v ? verdictWire(v) : null,
  };
}

/** What a channel's connection test posts. */
export function connectionTestBody(kind: string, origin: string) {
  const text = `Connection test from Call Shield (${origin}): alerts will arrive here.`;
  if (kind === "slack") return { text, blocks: [{ type: "section", text: { type: "mrkdwn", text } }] };
  return { type: "alert.test", sent_at: new Date().toISOString(), text };
}
