// The filters of GET /cases, kept in the URL: status, severity, assignee (the account's users) and
// one call's id (applied when submitted, so a half-typed id is never sent).
import { useEffect, useState, type FormEvent } from "react";
import { ApiError } from "../../api/errors.ts";
import { Field, SelectField } from "../../components/ui.tsx";
import { useUrlState } from "../../lib/url-state.ts";
import { words } from "../../lib/format.ts";
import { CASE_STATUSES, isUuid, SEVERITIES, useAccountUsers, userLabel } from "./case-values.tsx";

export function CaseFilters() {
  const url = useUrlState();
  const users = useAccountUsers();
  const callId = url.get("call_id");
  const [call, setCall] = useState(callId);
  const [invalid, setInvalid] = useState<ApiError | null>(null);
  useEffect(() => setCall(callId), [callId]);

  const applyCall = (event: FormEvent) => {
    event.preventDefault();
    const value = call.trim();
    if (value && !isUuid(value)) {
      setInvalid(new ApiError(422, "Not a call ID", { call_id: "A call ID looks like 3f2c…-…: copy it from the call's page" }));
      return;
    }
    setInvalid(null);
    url.set({ call_id: value });
  };

  return (
    <form className="record-filters" aria-label="Filter cases" onSubmit={applyCall}>
      <SelectField label="Status" name="status" value={url.get("status")} onChange={(e) => url.set({ status: e.target.value })}>
        <option value="">Any status</option>
        {CASE_STATUSES.map((s) => (
          <option key={s} value={s}>
            {words(s)}
          </option>
        ))}
      </SelectField>
      <SelectField label="Severity" name="severity" value={url.get("severity")} onChange={(e) => url.set({ severity: e.target.value })}>
        <option value="">Any severity</option>
        {SEVERITIES.map((s) => (
          <option key={s} value={s}>
            {s}
          </option>
        ))}
      </SelectField>
      <SelectField
        label="Assigned to"
        name="assigned_to"
        value={url.get("assigned_to")}
        onChange={(e) => url.set({ assigned_to: e.target.value })}
        hint={users.isError ? "The account's users could not be read." : undefined}
      >
        <option value="">Anyone</option>
        {users.data?.items.map((user) => (
          <option key={user.id} value={user.id}>
            {userLabel(user)}
            {user.is_active ? "" : " (inactive)"}
          </option>
        ))}
        {url.get("assigned_to") && users.data && !users.data.items.some((u) => u.id === url.get("assigned_to")) ? (
          <option value={url.get("assigned_to")}>A former user</option>
        ) : null}
      </SelectField>
      <Field label="Call ID" name="call_id" value={call} error={invalid} onChange={(e) => setCall(e.target.value)} spellCheck={false} />
      <div className="record-filters-buttons">
        <button type="submit">Filter by call</button>
        {url.get("status") || url.get("severity") || url.get("assigned_to") || callId ? (
          <button type="button" onClick={() => url.set({ status: "", severity: "", assigned_to: "", call_id: "" })}>
            Clear filters
          </button>
        ) : null}
      </div>
    </form>
  );
}
