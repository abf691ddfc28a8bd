// A case's title and description, edited in place (PATCH /cases/{id}).
import { useMutation, useQueryClient } from "@tanstack/react-query";
import { useState, type FormEvent } from "react";
import { api, must, type Schemas } from "../../api/client.ts";
import { ErrorBox, Field, TextField } from "../../components/ui.tsx";
import { featureUsed } from "../../lib/events.ts";

export function CaseEditForm({ record, onDone }: { record: Schemas["CaseDetail"]; onDone: () => void }) {
  const queries = useQueryClient();
  const [title, setTitle] = useState(record.title);
  const [description, setDescription] = useState(record.description ?? "");
  const save = useMutation({
    mutationFn: () =>
      must(
        api.PATCH("/cases/{case_id}", {
          params: { path: { case_id: record.id } },
          body: { title, description: description || null, clear_assigned_to: false },
        }),
      ),
    onSuccess: async () => {
      featureUsed("case.update");
      await queries.invalidateQueries({ queryKey: ["case", record.id] });
      void queries.invalidateQueries({ queryKey: ["cases"] });
      onDone();
    },
  });
  const submit = (event: FormEvent) => {
    event.preventDefault();
    save.mutate();
  };

  return (
    <form onSubmit={submit} aria-label="Title and description">
      <Field
        label="Title"
        name="title"
        required
        autoFocus
        maxLength={200}
        value={title}
        error={save.error}
        onChange={(e) => setTitle(e.target.value)}
      />
      <TextField
        label="Description"
        name="description"
        rows={6}
        maxLength={10_000}
        value={description}
        error={save.error}
        onChange={(e) => setDescription(e.target.value)}
      />
      <div className="actions">
        <button type="submit" className="primary" disabled={save.isPending}>
          Save
        </button>
        <button type="button" onClick={onDone}>
          Cancel
        </button>
      </div>
      <ErrorBox error={save.error} />
    </form>
  );
}
