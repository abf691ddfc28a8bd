// The account's automation rules (GET /automation/rules): what each one does with a verdict, a
// switch to enable or disable it, its form (?rule=new or ?rule=<id> in the URL) and delete.
import { useMutation, useQueryClient } from "@tanstack/react-query";
import { useId } from "react";
import { api, must } from "../../api/client.ts";
import { ConfirmButton, Empty, ErrorBox, Loading } from "../../components/ui.tsx";
import { featureUsed } from "../../lib/events.ts";
import { RuleEditor, useRuleInUrl } from "./rule-editor.tsx";
import { AutomationRuleForm } from "./rule-form.tsx";
import { EnabledBadge, destinationLabel, keys, listed, useAutomationRules, useDestinations, type AutomationRule } from "./shared.tsx";

export function AutomationRules() {
  const { editing, open, close } = useRuleInUrl();
  const rules = useAutomationRules();
  const destinations = useDestinations();
  return (
    <section className="card" aria-labelledby="automation-rules">
      <div className="section-title">
        <h2 id="automation-rules">Rules</h2>
        {editing ? null : (
          <button type="button" className="primary" onClick={() => open("new")}>
            New rule
          </button>
        )}
      </div>
      <p className="muted">
        A verdict at or above a rule's probability, with one of its recommendations, puts the caller's number under control: its next calls
        are blocked or diverted until the control expires or someone releases it. Of several matching rules, the strictest acts.
      </p>
      <RuleEditor
        editing={editing}
        rules={rules.data}
        Form={AutomationRuleForm}
        onDone={close}
        newTitle="New rule"
        gone="This rule no longer exists."
      />
      {rules.isPending ? <Loading what="Loading the rules" /> : null}
      <ErrorBox error={rules.error} />
      {rules.data && rules.data.length === 0 ? (
        <Empty>No rule yet: every verdict only informs, nothing is blocked automatically.</Empty>
      ) : null}
      {rules.data?.length ? <RuleTable rules={rules.data} destinations={destinations.data} onEdit={open} /> : null}
    </section>
  );
}

function RuleTable({
  rules,
  destinations,
  onEdit,
}: {
  rules: AutomationRule[];
  destinations: Parameters<typeof destinationLabel>[1];
  onEdit: (id: string) => void;
}) {
  const queries = useQueryClient();
  const base = useId();
  const refresh = () => void queries.invalidateQueries({ queryKey: keys.rules });
  const toggle = useMutation({
    mutationFn: (rule: AutomationRule) =>
      must(
        api.PATCH("/automation/rules/{rule_id}", {
          params: { path: { rule_id: rule.id } },
          body: { enabled: !rule.enabled, clear_duration: false },
        }),
      ),
    onSuccess: (rule) => {
      featureUsed(rule.enabled ? "automation.rule.enable" : "automation.rule.disable");
      refresh();
    },
  });
  const remove = useMutation({
    mutationFn: (id: string) => must(api.DELETE("/automation/rules/{rule_id}", { params: { path: { rule_id: id } } })),
    onSuccess: () => {
      featureUsed("automation.rule.delete");
      refresh();
    },
  });
  const busy = toggle.isPending || remove.isPending;
  return (
    <>
      <div className="table-wrap">
        <table>
          <caption className="visually-hidden">Automation rules</caption>
          <thead>
            <tr>
              <th scope="col">Rule</th>
              <th scope="col">State</th>
              <th scope="col">When</th>
              <th scope="col">Action</th>
              <th scope="col">Lasts</th>
              <th scope="col">
                <span className="visually-hidden">Actions</span>
              </th>
            </tr>
          </thead>
          <tbody>
            {rules.map((rule) => {
              const rowId = `${base}-${rule.id}`;
              return (
                <tr key={rule.id} data-rule-id={rule.id}>
                  <th scope="row" id={rowId}>
                    {rule.name}
                  </th>
                  <td>
                    <EnabledBadge enabled={rule.enabled} />
                  </td>
                  <td>
                    Probability ≥ {rule.min_probability}%, {listed(rule.recommendations, "any recommendation")}
                  </td>
                  <td>{rule.action === "divert" ? `Divert to ${destinationLabel(rule.divert_destination_id, destinations)}` : "Block"}</td>
                  <td>{rule.duration_hours ? `${rule.duration_hours} h` : "Until released"}</td>
                  <td>
                    <div className="actions">
                      <button type="button" onClick={() => onEdit(rule.id)} aria-describedby={rowId}>
                        Edit
                      </button>
                      <button type="button" onClick={() => toggle.mutate(rule)} disabled={busy} aria-describedby={rowId}>
                        {rule.enabled ? "Disable" : "Enable"}
                      </button>
                      <ConfirmButton
                        question="Delete this rule? The numbers it controls stay controlled until released."
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
      <ErrorBox error={toggle.error ?? remove.error} />
    </>
  );
}
