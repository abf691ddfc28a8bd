// A new case (POST /cases): title, description, severity and, optionally, the call it is about.
// Opened for a call (?new=1&call_id=…, as the call's page links it), the fields start from the
// draft GET /cases/prefill makes of the verdict, and a call that has its case already says so.
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useState, type FormEvent } from "react";
import { Link, useLocation } from "wouter";
import { api, must } from "../../api/client.ts";
import { ApiError } from "../../api/errors.ts";
import { ErrorBox, Field, Loading, SelectField, TextField } from "../../components/ui.tsx";
import { featureUsed } from "../../lib/events.ts";
import { aboutTheCallId, CallIdField, isUuid, SEVERITIES, typedCallId, type Severity } from "./case-values.tsx";

type Draft = { title: string; description: string; severity: Severity; call_id: string };

export function NewCase({ callId, onCancel }: { callId: string; onCancel: () => void }) {
  const forCall = isUuid(callId) ? callId : "";
  const prefill = useQuery({
    queryKey: ["case-prefill", forCall],
    queryFn: () => must(api.GET("/cases/prefill", { params: { query: { call_id: forCall } } })),
    enabled: !!forCall,
    retry: false,
  });
  if (forCall && prefill.isPending) return <Loading what="Drafting the case from the call" />;
  const draft: Draft = prefill.data
    ? { title: prefill.data.title, description: prefill.data.description, severity: prefill.data.severity, call_id: forCall }
    : { title: "", description: "", severity: "medium", call_id: forCall };
  return (
    <>
      {prefill.data?.existing_case_id ? (
        <p className="banner warn">
          <span>
            This call has its case already: <Link href={`/cases/${prefill.data.existing_case_id}`}>open that case</Link>.
          </span>
        </p>
      ) : null}
      {prefill.isError ? <ErrorBox error={prefill.error} /> : null}
      <NewCaseForm key={forCall} draft={draft} onCancel={onCancel} />
    </>
  );
}

/** 404 and 409 are about the call: they go beside its field. */
function aboutTheCall(err: unknown): unknown {
  if (err instanceof ApiError && err.status === 409)
    return new ApiError(409, "This call has its case already", { call_id: "This call has its case already" });
  return aboutTheCallId(err);
}

function NewCaseForm({ draft, onCancel }: { draft: Draft; onCancel: () => void }) {
  const queries = useQueryClient();
  const [, navigate] = useLocation();
  const [form, setForm] = useState(draft);
  const create = useMutation({
    mutationFn: async () => {
      const callId = typedCallId(form.call_id);
      try {
        return await must(
          api.POST("/cases", {
            body: { title: form.title, description: form.description || null, severity: form.severity, call_id: callId || null },
          }),
        );
      } catch (err) {
        throw aboutTheCall(err);
      }
    },
    onSuccess: (created) => {
      featureUsed("case.create");
      void queries.invalidateQueries({ queryKey: ["cases"] });
      navigate(`/cases/${created.id}`);
    },
  });
  const conflict = create.error instanceof ApiError && create.error.status === 409;
  const submit = (event: FormEvent) => {
    event.preventDefault();
    create.mutate();
  };

  return (
    <form onSubmit={submit} aria-label="New case">
      <Field
        label="Title"
        name="title"
        required
        autoFocus
        maxLength={200}
        value={form.title}
        error={create.error}
        onChange={(e) => setForm({ ...form, title: e.target.value })}
      />
      <TextField
        label="Description"
        name="description"
        rows={4}
        maxLength={10_000}
        value={form.description}
        error={create.error}
        onChange={(e) => setForm({ ...form, description: e.target.value })}
      />
      <div className="grid">
        <SelectField
          label="Severity"
          name="severity"
          value={form.severity}
          error={create.error}
          onChange={(e) => setForm({ ...form, severity: e.target.value as Severity })}
        >
          {SEVERITIES.map((s) => (
            <option key={s} value={s}>
              {s}
            </option>
          ))}
        </SelectField>
        <CallIdField
          value={form.call_id}
          error={create.error}
          hint="One case per call."
          onChange={(value) => setForm({ ...form, call_id: value })}
        />
      </div>
      <div className="actions">
        <button type="submit" className="primary" disabled={create.isPending}>
          Open the case
        </button>
        <button type="button" onClick={onCancel}>
          Cancel
        </button>
      </div>
      <ErrorBox error={create.error} />
      {conflict ? (
        <p>
          <Link href={`/cases?call_id=${encodeURIComponent(form.call_id.trim())}`}>Find the call's case</Link>
        </p>
      ) : null}
    </form>
  );
}
