// The account's alert rules (GET /customer/alert-rules): what fires each one and where it goes,
// its form (?rule=new or ?rule=<id>), delete, and "Send a test" (POST …/{id}/test) with what each
// delivery did: the e-mail and every channel, sent or not, the error and the time it took (409
// no_delivery when there is nothing to try).
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useId, useState } from "react";
import { api, must } from "../../api/client.ts";
import { ApiError } from "../../api/errors.ts";
import { ConfirmButton, Empty, ErrorBox, Loading } from "../../components/ui.tsx";
import { featureUsed } from "../../lib/events.ts";
import { ms, words } from "../../lib/format.ts";
import { RuleEditor, useRuleInUrl } from "../automation/rule-editor.tsx";
import { EnabledBadge, listed } from "../automation/shared.tsx";
import { AlertRuleForm } from "./rule-form.tsx";
import {
  channelName,
  CHANNEL_KINDS,
  keys,
  problem,
  useChannels,
  type AlertChannel,
  type AlertRule,
  type AlertTestResult,
} from "./shared.tsx";

/** A local run (npm start) sends no mail: the test e-mail waits in the outbox its mail view shows. */
const LOCAL_MAIL_VIEW = "local_mail_view";

const ATTACHED = [
  ["include_transcript", "transcript"],
  ["include_sip_log", "SIP log"],
  ["include_pcap", "pcap"],
  ["include_recording", "recording"],
] as const;

export function AlertRules() {
  const { editing, open, close } = useRuleInUrl();
  const rules = useQuery({ queryKey: keys.rules, queryFn: () => must(api.GET("/customer/alert-rules")) });
  return (
    <section className="card" aria-labelledby="alert-rules">
      <div className="section-title">
        <h2 id="alert-rules">Alert rules</h2>
        {editing ? null : (
          <button type="button" className="primary" onClick={() => open("new")}>
            New alert rule
          </button>
        )}
      </div>
      <p className="muted">
        Tell people when a verdict crosses a rule's probability, or when a call's quality drops: by e-mail and through connected channels.
      </p>
      <RuleEditor
        editing={editing}
        rules={rules.data}
        Form={AlertRuleForm}
        onDone={close}
        newTitle="New alert rule"
        gone="This alert rule no longer exists."
      />
      {rules.isPending ? <Loading what="Loading the alert rules" /> : null}
      <ErrorBox error={rules.error} />
      {rules.data && rules.data.length === 0 ? <Empty>No alert rule yet.</Empty> : null}
      {rules.data?.length ? <RuleTable rules={rules.data} onEdit={open} /> : null}
    </section>
  );
}

function trigger(rule: AlertRule) {
  if (rule.trigger === "quality") return `Quality: MOS ≤ ${rule.max_mos ?? "?"}`;
  if (rule.trigger === "screening") {
    const on = [
      rule.screening_rules?.length ? listed(rule.screening_rules, "") : "",
      rule.identity_statuses?.length ? `caller ID ${listed(rule.identity_statuses, "")}` : "",
    ];
    return `Screening: ${on.filter(Boolean).join("; ") || "any rule's flag"}`;
  }
  const narrowed = [
    rule.categories?.length ? listed(rule.categories, "") : "",
    rule.recommendations?.length ? listed(rule.recommendations, "") : "",
  ].filter(Boolean);
  return `Fraud: probability ≥ ${rule.min_probability}%${narrowed.length ? `, ${narrowed.join("; ")}` : ""}`;
}

function deliveries(rule: AlertRule, channels: AlertChannel[] | undefined) {
  const parts: string[] = [];
  if (rule.email_enabled) parts.push(`E-mail to ${rule.recipients?.length ? rule.recipients.join(", ") : "the account's address"}`);
  for (const id of rule.channel_ids ?? []) {
    const channel = channels?.find((c) => c.id === id);
    parts.push(channel ? channelName(channel) : "a removed channel");
  }
  return parts;
}

function RuleTable({ rules, onEdit }: { rules: AlertRule[]; onEdit: (id: string) => void }) {
  const queries = useQueryClient();
  const channels = useChannels();
  const base = useId();
  const [tested, setTested] = useState<{ rule: AlertRule; result: AlertTestResult } | null>(null);
  const test = useMutation({
    mutationFn: (rule: AlertRule) =>
      must(api.POST("/customer/alert-rules/{rule_id}/test", { params: { path: { rule_id: rule.id } } })).then((result) => ({
        rule,
        result,
      })),
    onMutate: () => setTested(null),
    onSuccess: (done) => {
      featureUsed("alerts.rule.test");
      setTested(done);
    },
  });
  const remove = useMutation({
    mutationFn: (id: string) => must(api.DELETE("/customer/alert-rules/{rule_id}", { params: { path: { rule_id: id } } })),
    onSuccess: () => {
      featureUsed("alerts.rule.delete");
      setTested(null);
      void queries.invalidateQueries({ queryKey: keys.rules });
    },
  });
  const busy = test.isPending || remove.isPending;
  const nothing = test.error instanceof ApiError && test.error.status === 409;
  return (
    <>
      <div className="table-wrap">
        <table>
          <caption className="visually-hidden">Alert rules</caption>
          <thead>
            <tr>
              <th scope="col">Rule</th>
              <th scope="col">State</th>
              <th scope="col">Fires on</th>
              <th scope="col">Goes to</th>
              <th scope="col">Attachments</th>
              <th scope="col">Throttle</th>
              <th scope="col">
                <span className="visually-hidden">Actions</span>
              </th>
            </tr>
          </thead>
          <tbody>
            {rules.map((rule) => {
              const rowId = `${base}-${rule.id}`;
              const attached = ATTACHED.filter(([name]) => rule[name]).map(([, label]) => label);
              const goes = deliveries(rule, channels.data);
              return (
                <tr key={rule.id} data-rule-id={rule.id}>
                  <th scope="row" id={rowId}>
                    {rule.name}
                  </th>
                  <td>
                    <EnabledBadge enabled={rule.enabled} />
                  </td>
                  <td>{trigger(rule)}</td>
                  <td>
                    {goes.length ? (
                      <ul className="plain compact">
                        {goes.map((g) => (
                          <li key={g}>{g}</li>
                        ))}
                      </ul>
                    ) : (
                      <span className="muted">Nowhere</span>
                    )}
                  </td>
                  <td>{attached.length ? attached.join(", ") : <span className="muted">None</span>}</td>
                  <td>{rule.throttle_minutes ? `${rule.throttle_minutes} min` : "None"}</td>
                  <td>
                    <div className="actions">
                      <button type="button" onClick={() => test.mutate(rule)} disabled={busy} aria-describedby={rowId}>
                        {test.isPending && test.variables?.id === rule.id ? "Sending…" : "Send a test"}
                      </button>
                      <button type="button" onClick={() => onEdit(rule.id)} aria-describedby={rowId}>
                        Edit
                      </button>
                      <ConfirmButton
                        question="Delete this alert rule?"
                        confirm="Delete the rule"
                        onConfirm={() => remove.mutate(rule.id)}
                        busy={busy}
                        describedBy={rowId}
                      >
                        Delete
                      </ConfirmButton>
                    </div>
                  </td>
                </tr>
              );
            })}
          </tbody>
        </table>
      </div>
      <div aria-live="polite">
        {tested ? <TestResult rule={tested.rule} result={tested.result} onClose={() => setTested(null)} /> : null}
        {nothing ? (
          <p className="error" role="alert">
            Nothing to send the test through: this rule's e-mail is off (or this service sends no mail) and it has no enabled channel.
          </p>
        ) : (
          <ErrorBox error={test.error ?? remove.error} />
        )}
      </div>
    </>
  );
}

function Outcome({ sent, error }: { sent: boolean; error: string | null | undefined }) {
  return (
    <>
      <span className={sent ? "badge delivered" : "badge failed"}>{sent ? "Sent" : "Not sent"}</span>
      {error ? <span className="muted"> {problem(error)}</span> : null}
    </>
  );
}

function TestResult({ rule, result, onClose }: { rule: AlertRule; result: AlertTestResult; onClose: () => void }) {
  const emailed = result.recipients.length > 0;
  return (
    <div className="test-result" data-testid="alert-test-result">
      <h3>Test of “{rule.name}”</h3>
      <div className="table-wrap">
        <table>
          <caption className="visually-hidden">What each delivery of the test did</caption>
          <thead>
            <tr>
              <th scope="col">Delivery</th>
              <th scope="col">Result</th>
              <th scope="col" className="num">
                Took
              </th>
            </tr>
          </thead>
          <tbody>
            <tr data-delivery="email">
              <th scope="row">E-mail{emailed ? ` to ${result.recipients.join(", ")}` : ""}</th>
              <td>
                {result.error === LOCAL_MAIL_VIEW ? (
                  <>
                    <span className="badge local">Kept in the local outbox</span> <a href="/dev/mail">Open the local mail view</a>
                  </>
                ) : emailed || result.error ? (
                  <Outcome sent={result.sent} error={result.error} />
                ) : (
                  <span className="muted">E-mail is off</span>
                )}
              </td>
              <td className="num">{emailed ? ms(result.latency_ms) : "—"}</td>
            </tr>
            {result.channels.map((channel) => (
              <tr key={channel.id} data-delivery="channel">
                <th scope="row">{channel.label || (CHANNEL_KINDS as Record<string, string>)[channel.kind] || words(channel.kind)}</th>
                <td>
                  <Outcome sent={channel.sent} error={channel.error} />
                </td>
                <td className="num">{ms(channel.latency_ms)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      <button type="button" onClick={onClose}>
        Done
      </button>
    </div>
  );
}
