// Routing rules (GET/POST/PATCH/DELETE /customer/routing-rules): a call whose whitelist entry
// names no destination goes to the destination of the enabled rule with the longest prefix of the
// dialed number, then the lowest priority value; else to the default destination. The list comes
// in that order; the box below it answers, for a number typed in (kept in the URL as ?number=),
// which rules match in the order admission tries them (route-match.ts).
import { useMutation, useQueryClient } from "@tanstack/react-query";
import { Fragment, useId, useState, type FormEvent } from "react";
import { useSearchParams } from "wouter";
import { api, must } from "../../api/client.ts";
import { Empty, ErrorBox, Field, Loading, SelectField } from "../../components/ui.tsx";
import { featureUsed } from "../../lib/events.ts";
import { routeNumber } from "./route-match.ts";
import {
  CheckField,
  DeleteButton,
  DestinationOptions,
  DestinationRef,
  destinationName,
  keys,
  orNull,
  TrunkError,
  useDestinations,
  useIps,
  useRules,
  type Destination,
  type RoutingRule,
} from "./shared.tsx";

const RULE_FIELDS = ["prefix", "destination_id", "priority", "label", "enabled"];

export function RoutingSection() {
  const rules = useRules();
  const destinations = useDestinations();
  return (
    <section className="card" aria-labelledby="trunk-routing">
      <h2 id="trunk-routing">Routing rules</h2>
      <p className="muted">
        A call whose whitelist entry names no destination goes to the destination of the enabled rule with the longest prefix of the dialed
        number; among rules of equal length, the lowest priority value wins. When no rule matches, the default destination takes the call.
      </p>
      {destinations.data?.length === 0 ? (
        <Empty>Add a destination first: a rule sends calls to one.</Empty>
      ) : (
        <RuleForm destinations={destinations.data} />
      )}
      <h3>Rules, in the order they are tried</h3>
      {rules.isPending ? <Loading what="Loading the routing rules" /> : null}
      <ErrorBox error={rules.error} />
      {rules.data && rules.data.length === 0 ? (
        <Empty>No routing rule: every call goes to its entry&apos;s or the default destination.</Empty>
      ) : null}
      {rules.data?.length ? <RuleTable rules={rules.data} destinations={destinations.data} /> : null}
      <RouteFinder rules={rules.data} destinations={destinations.data} />
    </section>
  );
}

type Draft = { prefix: string; destination_id: string; priority: string; label: string; enabled: boolean };
const EMPTY: Draft = { prefix: "", destination_id: "", priority: "100", label: "", enabled: true };
const draftOf = (r: RoutingRule): Draft => ({
  prefix: r.prefix,
  destination_id: r.destination_id,
  priority: String(r.priority),
  label: r.label ?? "",
  enabled: r.enabled,
});

function RuleForm({ destinations, rule, onDone }: { destinations: Destination[] | undefined; rule?: RoutingRule; onDone?: () => void }) {
  const queries = useQueryClient();
  const [draft, setDraft] = useState<Draft>(rule ? draftOf(rule) : EMPTY);
  const save = useMutation({
    mutationFn: () => {
      const body = {
        prefix: draft.prefix.trim(),
        destination_id: draft.destination_id,
        priority: Number(draft.priority),
        label: orNull(draft.label),
        enabled: draft.enabled,
      };
      return rule
        ? must(api.PATCH("/customer/routing-rules/{rule_id}", { params: { path: { rule_id: rule.id } }, body }))
        : must(api.POST("/customer/routing-rules", { body }));
    },
    onSuccess: () => {
      featureUsed(rule ? "trunk.routing.edit" : "trunk.routing.add");
      if (!rule) setDraft(EMPTY);
      void queries.invalidateQueries({ queryKey: keys.rules });
      onDone?.();
    },
  });
  const submit = (event: FormEvent) => {
    event.preventDefault();
    save.mutate();
  };
  return (
    <form className="trunk-form" onSubmit={submit} aria-label={rule ? `Edit the rule for ${rule.prefix}` : "New routing rule"}>
      <div className="trunk-fields">
        <Field
          label="Prefix"
          name="prefix"
          value={draft.prefix}
          onChange={(e) => setDraft({ ...draft, prefix: e.target.value })}
          placeholder="+4930"
          required
          autoComplete="off"
          hint="Leading digits of the dialed number, optionally after a +."
          error={save.error}
        />
        <SelectField
          label="Destination"
          name="destination_id"
          value={draft.destination_id}
          onChange={(e) => setDraft({ ...draft, destination_id: e.target.value })}
          required
          error={save.error}
        >
          <option value="">Choose a destination</option>
          <DestinationOptions destinations={destinations} />
        </SelectField>
        <Field
          label="Priority"
          name="priority"
          type="number"
          value={draft.priority}
          onChange={(e) => setDraft({ ...draft, priority: e.target.value })}
          required
          hint="Among prefixes of equal length, the lowest wins."
          error={save.error}
        />
        <Field
          label="Label"
          name="label"
          value={draft.label}
          onChange={(e) => setDraft({ ...draft, label: e.target.value })}
          placeholder="Berlin via SBC 2"
          autoComplete="off"
          error={save.error}
        />
      </div>
      <CheckField
        label="Enabled"
        name="enabled"
        checked={draft.enabled}
        onChange={(e) => setDraft({ ...draft, enabled: e.target.checked })}
        error={save.error}
      />
      <div className="actions">
        <button type="submit" className="primary" disabled={save.isPending}>
          {save.isPending ? "Saving…" : rule ? "Save" : "Add rule"}
        </button>
        {onDone ? (
          <button type="button" onClick={onDone}>
            Cancel
          </button>
        ) : null}
      </div>
      <TrunkError error={save.error} fields={RULE_FIELDS} />
    </form>
  );
}

function RuleTable({ rules, destinations }: { rules: RoutingRule[]; destinations: Destination[] | undefined }) {
  const queries = useQueryClient();
  const base = useId();
  const [editing, setEditing] = useState<string | null>(null);
  const refresh = () => void queries.invalidateQueries({ queryKey: keys.rules });
  const toggle = useMutation({
    mutationFn: (rule: RoutingRule) =>
      must(api.PATCH("/customer/routing-rules/{rule_id}", { params: { path: { rule_id: rule.id } }, body: { enabled: !rule.enabled } })),
    onSuccess: (rule) => {
      featureUsed(rule.enabled ? "trunk.routing.enable" : "trunk.routing.disable");
      refresh();
    },
  });
  const remove = useMutation({
    mutationFn: (rule: RoutingRule) => must(api.DELETE("/customer/routing-rules/{rule_id}", { params: { path: { rule_id: rule.id } } })),
    onSuccess: () => {
      featureUsed("trunk.routing.delete");
      refresh();
    },
  });
  const busy = toggle.isPending || remove.isPending;
  return (
    <>
      <div className="table-wrap">
        <table className="trunk-table">
          <caption className="visually-hidden">Routing rules, longest prefix first, then priority</caption>
          <thead>
            <tr>
              <th scope="col">Prefix</th>
              <th scope="col">Destination</th>
              <th scope="col" className="num">
                Priority
              </th>
              <th scope="col">State</th>
              <th scope="col">Label</th>
              <th scope="col">
                <span className="visually-hidden">Actions</span>
              </th>
            </tr>
          </thead>
          <tbody>
            {rules.map((rule) => {
              const rowId = `${base}-${rule.id}`;
              return (
                <Fragment key={rule.id}>
                  <tr data-rule-id={rule.id}>
                    <th scope="row" id={rowId}>
                      <code>{rule.prefix}</code>
                    </th>
                    <td>
                      <DestinationRef id={rule.destination_id} destinations={destinations} />
                    </td>
                    <td className="num">{rule.priority}</td>
                    <td>{rule.enabled ? <span className="badge trunk-ok">Enabled</span> : <span className="badge">Disabled</span>}</td>
                    <td>{rule.label ?? <span className="muted">—</span>}</td>
                    <td>
                      <div className="actions">
                        <button
                          type="button"
                          aria-expanded={editing === rule.id}
                          aria-describedby={rowId}
                          onClick={() => setEditing(editing === rule.id ? null : rule.id)}
                        >
                          Edit
                        </button>
                        <button type="button" disabled={busy} aria-describedby={rowId} onClick={() => toggle.mutate(rule)}>
                          {rule.enabled ? "Disable" : "Enable"}
                        </button>
                        <DeleteButton
                          what={`the rule for ${rule.prefix}`}
                          busy={busy}
                          describedBy={rowId}
                          onDelete={() => remove.mutate(rule)}
                        />
                      </div>
                    </td>
                  </tr>
                  {editing === rule.id ? (
                    <tr className="trunk-panel-row">
                      <td colSpan={6}>
                        <RuleForm destinations={destinations} rule={rule} onDone={() => setEditing(null)} />
                      </td>
                    </tr>
                  ) : null}
                </Fragment>
              );
            })}
          </tbody>
        </table>
      </div>
      <TrunkError error={toggle.error ?? remove.error} />
    </>
  );
}

const ANY_ENTRY = "";

/** "Which destination would take this number?": the rules that match, in the order admission tries them. */
function RouteFinder({ rules, destinations }: { rules: RoutingRule[] | undefined; destinations: Destination[] | undefined }) {
  // The number and entry live in the URL (a link shows the same answer); typing replaces the
  // history entry rather than adding one per keystroke.
  const [params, setParams] = useSearchParams();
  const ips = useIps();
  const number = params.get("number") ?? "";
  const entryId = params.get("entry") ?? "";
  const keep = (name: string, value: string) => {
    const next = new URLSearchParams(params);
    if (value) next.set(name, value);
    else next.delete(name);
    setParams(next, { replace: true });
  };
  const entry = ips.data?.find((e) => e.id === entryId) ?? null;
  const answer = number.trim() && rules && destinations ? routeNumber(number, rules, destinations, entry) : null;
  const outputId = useId();
  return (
    <div className="trunk-finder">
      <h3>Which destination would take this number?</h3>
      <form
        className="inline-form"
        role="search"
        aria-label="Which destination would take this number?"
        onSubmit={(e) => e.preventDefault()}
      >
        <Field
          label="Dialed number"
          name="number"
          value={number}
          onChange={(e) => keep("number", e.target.value)}
          placeholder="+49301234567"
          inputMode="tel"
          autoComplete="off"
          aria-controls={outputId}
        />
        <SelectField label="Arriving through" name="entry" value={entryId} onChange={(e) => keep("entry", e.target.value)}>
          <option value={ANY_ENTRY}>An entry without its own destination</option>
          {(ips.data ?? []).map((e) => (
            <option key={e.id} value={e.id}>
              {e.cidr}
              {e.label ? ` (${e.label})` : ""}
              {e.dial_prefix ? `, dial prefix ${e.dial_prefix}` : ""}
            </option>
          ))}
        </SelectField>
      </form>
      <div id={outputId} className="trunk-answer" aria-live="polite" data-testid="route-answer">
        {answer ? <RouteAnswerView answer={answer} /> : <p className="muted">Type a number to see the rules that match it, in order.</p>}
      </div>
      <p className="muted">
        Before any of this, a calling number that an automation rule diverts goes to the divert destination, and a calling number it blocks
        is refused.
      </p>
    </div>
  );
}

function RouteAnswerView({ answer }: { answer: ReturnType<typeof routeNumber> }) {
  const { winner } = answer;
  return (
    <>
      <p className="trunk-winner" data-destination-id={winner?.destination.id ?? ""}>
        {answer.entryRefuses ? (
          answer.entryRefuses
        ) : winner ? (
          <>
            <strong>{destinationName(winner.destination)}</strong> takes the call{" "}
            {winner.by === "whitelist_entry"
              ? "(the whitelist entry's own destination: rules are not consulted)"
              : winner.by === "routing_rule"
                ? `(rule ${winner.prefix})`
                : "(the default destination: no rule matches)"}
            .
          </>
        ) : (
          "Nothing takes the call: no rule matches and there is no default destination, so it is refused (no route)."
        )}
      </p>
      {answer.strippedPrefix ? (
        <p className="muted">
          The entry&apos;s dial prefix {answer.strippedPrefix} is taken off first: the rules see {answer.digits || "nothing"}.
        </p>
      ) : null}
      {answer.matches.length ? (
        <ol className="trunk-matches" aria-label="Matching rules, in the order they are tried">
          {answer.matches.map(({ rule, destination }, n) => (
            <li key={rule.id} data-rule-id={rule.id}>
              <code>{rule.prefix}</code> → {destinationName(destination)}{" "}
              <span className="muted">
                (priority {rule.priority}
                {rule.label ? `, ${rule.label}` : ""})
              </span>
              {n === 0 && winner?.by === "routing_rule" ? <span className="badge trunk-ok">takes the call</span> : null}
            </li>
          ))}
          {answer.fallback ? (
            <li data-rule-id="default">
              Default destination → {destinationName(answer.fallback)}
              {winner?.by === "default" ? <span className="badge trunk-ok">takes the call</span> : null}
            </li>
          ) : null}
        </ol>
      ) : (
        <p className="muted">No enabled rule matches this number.</p>
      )}
      {answer.ignored.length ? (
        <p className="muted">
          Not tried:{" "}
          {answer.ignored.map(({ rule, why }, n) => (
            <span key={rule.id}>
              {n ? "; " : ""}
              <code>{rule.prefix}</code> ({why})
            </span>
          ))}
          .
        </p>
      ) : null}
    </>
  );
}
