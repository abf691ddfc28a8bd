// A case's status, severity and assignee, changed together by PATCH /cases/{id}. Only active users
// of the account are offered (the API refuses others with a 422); "Unassigned" clears the assignee.
import { useMutation, useQueryClient } from "@tanstack/react-query";
import { useState, type FormEvent } from "react";
import { api, must, type Schemas } from "../../api/client.ts";
import { ErrorBox, SelectField } from "../../components/ui.tsx";
import { featureUsed } from "../../lib/events.ts";
import { words } from "../../lib/format.ts";
import { CASE_STATUSES, SEVERITIES, useAccountUsers, userLabel, type CaseStatus, type Severity } from "./case-values.tsx";

type Case = Schemas["CaseDetail"];

export function CaseChanges({ record }: { record: Case }) {
  const queries = useQueryClient();
  const users = useAccountUsers();
  const [status, setStatus] = useState<CaseStatus>(record.status);
  const [severity, setSeverity] = useState<Severity>(record.severity);
  const [assignee, setAssignee] = useState(record.assigned_to ?? "");
  const [saved, setSaved] = useState(false);
  const changed = status !== record.status || severity !== record.severity || assignee !== (record.assigned_to ?? "");

  const save = useMutation({
    mutationFn: () =>
      must(
        api.PATCH("/cases/{case_id}", {
          params: { path: { case_id: record.id } },
          body: {
            status: status !== record.status ? status : undefined,
            severity: severity !== record.severity ? severity : undefined,
            assigned_to: assignee && assignee !== record.assigned_to ? assignee : undefined,
            clear_assigned_to: !assignee && !!record.assigned_to,
          },
        }),
      ),
    onSuccess: async () => {
      featureUsed("case.update");
      setSaved(true);
      await queries.invalidateQueries({ queryKey: ["case", record.id] });
      void queries.invalidateQueries({ queryKey: ["cases"] });
    },
  });
  const submit = (event: FormEvent) => {
    event.preventDefault();
    setSaved(false);
    save.mutate();
  };

  const active = users.data?.items.filter((u) => u.is_active) ?? [];
  // The current assignee stays visible even when no longer active (the API keeps the case theirs).
  const stale = record.assigned_to && !active.some((u) => u.id === record.assigned_to);

  return (
    <form onSubmit={submit} aria-label="Status, severity and assignee">
      <div className="grid">
        <SelectField
          label="Status"
          name="status"
          value={status}
          error={save.error}
          onChange={(e) => {
            setSaved(false);
            setStatus(e.target.value as CaseStatus);
          }}
        >
          {CASE_STATUSES.map((s) => (
            <option key={s} value={s}>
              {words(s)}
            </option>
          ))}
        </SelectField>
        <SelectField
          label="Severity"
          name="severity"
          value={severity}
          error={save.error}
          onChange={(e) => {
            setSaved(false);
            setSeverity(e.target.value as Severity);
          }}
        >
          {SEVERITIES.map((s) => (
            <option key={s} value={s}>
              {s}
            </option>
          ))}
        </SelectField>
        <SelectField
          label="Assigned to"
          name="assigned_to"
          value={assignee}
          error={save.error}
          hint={users.isPending ? "Reading the account's users…" : users.isError ? "The account's users could not be read." : undefined}
          onChange={(e) => {
            setSaved(false);
            setAssignee(e.target.value);
          }}
        >
          <option value="">Unassigned</option>
          {stale ? (
            <option value={record.assigned_to ?? ""} disabled>
              {record.assigned_to_label ?? "A former user"} (inactive)
            </option>
          ) : null}
          {active.map((user) => (
            <option key={user.id} value={user.id}>
              {userLabel(user)}
            </option>
          ))}
        </SelectField>
      </div>
      <div className="actions">
        <button type="submit" className="primary" disabled={!changed || save.isPending}>
          Save changes
        </button>
        {saved && !changed ? (
          <span role="status" className="muted">
            Saved.
          </span>
        ) : null}
      </div>
      <ErrorBox error={save.error} />
    </form>
  );
}
