// A new support ticket (POST /support/tickets): kind, subject, the message and, optionally, the call
// whose verdict is disputed. Opened for a call (?new=1&call_id=…), the kind starts as a dispute.
import { useMutation, useQueryClient } from "@tanstack/react-query";
import { useState, type FormEvent } from "react";
import { useLocation } from "wouter";
import { api, must } from "../../api/client.ts";
import { ErrorBox, Field, SelectField, TextField } from "../../components/ui.tsx";
import { featureUsed } from "../../lib/events.ts";
import { aboutTheCallId, CallIdField, isUuid, typedCallId } from "../cases/case-values.tsx";
import { KIND_LABELS, TICKET_KINDS, type TicketKind } from "./ticket-values.ts";

export function NewTicketForm({ callId, onCancel }: { callId: string; onCancel: () => void }) {
  const queries = useQueryClient();
  const [, navigate] = useLocation();
  const forCall = isUuid(callId) ? callId : "";
  const [form, setForm] = useState({ kind: (forCall ? "analysis" : "question") as TicketKind, subject: "", body: "", call_id: forCall });
  const create = useMutation({
    mutationFn: async () => {
      const callId = typedCallId(form.call_id);
      try {
        return await must(
          api.POST("/support/tickets", { body: { kind: form.kind, subject: form.subject, body: form.body, call_id: callId || null } }),
        );
      } catch (err) {
        throw aboutTheCallId(err);
      }
    },
    onSuccess: (created) => {
      featureUsed("ticket.create");
      void queries.invalidateQueries({ queryKey: ["tickets"] });
      navigate(`/support/${created.id}`);
    },
  });
  const submit = (event: FormEvent) => {
    event.preventDefault();
    create.mutate();
  };

  return (
    <form onSubmit={submit} aria-label="New ticket">
      <div className="grid">
        <SelectField
          label="Kind"
          name="kind"
          value={form.kind}
          error={create.error}
          onChange={(e) => setForm({ ...form, kind: e.target.value as TicketKind })}
        >
          {TICKET_KINDS.map((k) => (
            <option key={k} value={k}>
              {KIND_LABELS[k]}
            </option>
          ))}
        </SelectField>
        <CallIdField
          value={form.call_id}
          error={create.error}
          hint="The call whose verdict you dispute, or that your question is about."
          onChange={(value) => setForm({ ...form, call_id: value })}
        />
      </div>
      <Field
        label="Subject"
        name="subject"
        required
        autoFocus
        maxLength={200}
        value={form.subject}
        error={create.error}
        onChange={(e) => setForm({ ...form, subject: e.target.value })}
      />
      <TextField
        label="Message"
        name="body"
        required
        rows={6}
        maxLength={20_000}
        value={form.body}
        error={create.error}
        onChange={(e) => setForm({ ...form, body: e.target.value })}
      />
      <div className="actions">
        <button type="submit" className="primary" disabled={create.isPending}>
          Send to support
        </button>
        <button type="button" onClick={onCancel}>
          Cancel
        </button>
      </div>
      <ErrorBox error={create.error} />
    </form>
  );
}
