// Opening a case from the call (drafted by GET /cases/prefill; the call's case when it has one) and
// disputing its verdict (a support ticket of kind `analysis` naming the call).
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useState, type FormEvent } from "react";
import { Link } from "wouter";
import { api, must, type Schemas } from "../../api/client.ts";
import { ErrorBox, Field, fieldError, Loading, SelectField, TextField } from "../../components/ui.tsx";
import { featureUsed } from "../../lib/events.ts";
import { words } from "../../lib/format.ts";
import { callKey, type CallDetail } from "./shared.ts";

type Severity = Schemas["CreateCase"]["severity"];
const SEVERITIES: Severity[] = ["low", "medium", "high", "critical"];

export function OpenCase({ call }: { call: CallDetail }) {
  const [open, setOpen] = useState(false);
  const [created, setCreated] = useState<Schemas["Case"] | null>(null);
  const prefill = useQuery({
    queryKey: ["call", call.id, "case-prefill"],
    queryFn: () => must(api.GET("/cases/prefill", { params: { query: { call_id: call.id } } })),
    enabled: open && !call.case_id && !created,
    staleTime: 0,
  });

  let body;
  if (created) {
    body = (
      <p role="status">
        Case #{created.case_no} is open. <Link href={`/cases/${created.id}`}>Go to case #{created.case_no}</Link>
      </p>
    );
  } else if (call.case_id || prefill.data?.existing_case_id) {
    body = (
      <p>
        This call already has a case. <Link href={`/cases/${call.case_id ?? prefill.data?.existing_case_id}`}>Go to the call's case</Link>
      </p>
    );
  } else if (!open) {
    body = (
      <button type="button" onClick={() => setOpen(true)}>
        Open a case
      </button>
    );
  } else if (prefill.isPending) {
    body = <Loading what="Drafting the case" />;
  } else if (prefill.isError) {
    body = <ErrorBox error={prefill.error} />;
  } else {
    body = <CaseForm call={call} draft={prefill.data} onCreated={setCreated} onCancel={() => setOpen(false)} />;
  }
  return (
    <div className="action-block">
      <h3>Case</h3>
      {body}
    </div>
  );
}

function CaseForm({
  call,
  draft,
  onCreated,
  onCancel,
}: {
  call: CallDetail;
  draft: Schemas["CasePrefill"];
  onCreated: (created: Schemas["Case"]) => void;
  onCancel: () => void;
}) {
  const queries = useQueryClient();
  const [title, setTitle] = useState(draft.title);
  const [severity, setSeverity] = useState<Severity>(draft.severity);
  const [description, setDescription] = useState(draft.description);
  const create = useMutation({
    mutationFn: () =>
      must(api.POST("/cases", { body: { call_id: call.id, title: title.trim(), severity, description: description.trim() || null } })),
    onSuccess: (created) => {
      featureUsed("call.case.open");
      onCreated(created);
      void queries.invalidateQueries({ queryKey: callKey(call.id), exact: true });
      void queries.invalidateQueries({ queryKey: ["cases"] });
    },
  });
  const submit = (event: FormEvent) => {
    event.preventDefault();
    create.mutate();
  };
  const named = ["title", "severity", "description", "call_id"].some((name) => fieldError(create.error, name));
  return (
    <form onSubmit={submit} aria-label="Open a case">
      <Field label="Title" name="title" value={title} onChange={(e) => setTitle(e.target.value)} required error={create.error} />
      <SelectField
        label="Severity"
        name="severity"
        value={severity}
        onChange={(e) => setSeverity(e.target.value as Severity)}
        error={create.error}
      >
        {SEVERITIES.map((s) => (
          <option key={s} value={s}>
            {words(s)}
          </option>
        ))}
      </SelectField>
      <TextField
        label="Description"
        name="description"
        value={description}
        onChange={(e) => setDescription(e.target.value)}
        rows={5}
        error={create.error}
      />
      <div className="actions">
        <button type="submit" className="primary" disabled={create.isPending || !title.trim()}>
          {create.isPending ? "Opening…" : "Create the case"}
        </button>
        <button type="button" onClick={onCancel}>
          Cancel
        </button>
      </div>
      {named ? null : <ErrorBox error={create.error} />}
    </form>
  );
}

export function Dispute({ call }: { call: CallDetail }) {
  const [open, setOpen] = useState(false);
  const [sent, setSent] = useState<Schemas["SupportTicket"] | null>(null);
  if (!call.analysis) return null;
  return (
    <div className="action-block">
      <h3>Dispute the verdict</h3>
      {sent ? (
        <p role="status">
          Ticket #{sent.ticket_no} is with support. <Link href={`/support/${sent.id}`}>Go to ticket #{sent.ticket_no}</Link>
        </p>
      ) : open ? (
        <DisputeForm call={call} onSent={setSent} onCancel={() => setOpen(false)} />
      ) : (
        <>
          <p className="muted">Think the verdict is wrong? Support reviews it with you.</p>
          <button type="button" onClick={() => setOpen(true)}>
            Dispute the verdict
          </button>
        </>
      )}
    </div>
  );
}

function DisputeForm({
  call,
  onSent,
  onCancel,
}: {
  call: CallDetail;
  onSent: (ticket: Schemas["SupportTicket"]) => void;
  onCancel: () => void;
}) {
  const queries = useQueryClient();
  const verdict = call.analysis;
  const [subject, setSubject] = useState(
    `Verdict on the call from ${call.ani ?? "an unknown number"}${verdict ? `: ${words(verdict.recommendation)} at ${verdict.probability}%` : ""}`,
  );
  const [body, setBody] = useState("");
  const send = useMutation({
    mutationFn: () =>
      must(api.POST("/support/tickets", { body: { kind: "analysis", call_id: call.id, subject: subject.trim(), body: body.trim() } })),
    onSuccess: (ticket) => {
      featureUsed("call.dispute");
      onSent(ticket);
      void queries.invalidateQueries({ queryKey: ["tickets"] });
    },
  });
  const submit = (event: FormEvent) => {
    event.preventDefault();
    send.mutate();
  };
  const named = ["subject", "body", "kind", "call_id"].some((name) => fieldError(send.error, name));
  return (
    <form onSubmit={submit} aria-label="Dispute the verdict">
      <Field label="Subject" name="subject" value={subject} onChange={(e) => setSubject(e.target.value)} required error={send.error} />
      <TextField
        label="What is wrong with the verdict"
        name="body"
        value={body}
        onChange={(e) => setBody(e.target.value)}
        required
        rows={5}
        error={send.error}
        hint="For example: this was our own IVR, not a scam."
      />
      <div className="actions">
        <button type="submit" className="primary" disabled={send.isPending || !subject.trim() || !body.trim()}>
          {send.isPending ? "Sending…" : "Send the dispute"}
        </button>
        <button type="button" onClick={onCancel}>
          Cancel
        </button>
      </div>
      {named ? null : <ErrorBox error={send.error} />}
    </form>
  );
}
