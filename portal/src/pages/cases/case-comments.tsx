// A case's thread: the comments of its users and the status and assignee changes the service
// recorded, oldest first, and a new comment (POST /cases/{id}/comments).
import { useMutation, useQueryClient } from "@tanstack/react-query";
import { useState, type FormEvent } from "react";
import { api, must, type Schemas } from "../../api/client.ts";
import { Empty, ErrorBox, TextField } from "../../components/ui.tsx";
import { featureUsed } from "../../lib/events.ts";
import { Thread } from "./case-values.tsx";

export function CaseComments({ record }: { record: Schemas["CaseDetail"] }) {
  const queries = useQueryClient();
  const [body, setBody] = useState("");
  const add = useMutation({
    mutationFn: () => must(api.POST("/cases/{case_id}/comments", { params: { path: { case_id: record.id } }, body: { body } })),
    onSuccess: async () => {
      featureUsed("case.comment");
      setBody("");
      await queries.invalidateQueries({ queryKey: ["case", record.id] });
      void queries.invalidateQueries({ queryKey: ["cases"] });
    },
  });
  const submit = (event: FormEvent) => {
    event.preventDefault();
    add.mutate();
  };

  return (
    <section className="card" aria-labelledby="comments">
      <h2 id="comments">Comments</h2>
      {record.comments.length === 0 ? <Empty>No comment yet.</Empty> : null}
      <Thread
        label="Comments, oldest first"
        entries={record.comments.map((c) => ({
          id: c.id,
          author: c.author_kind === "system" ? (c.author_label ?? "Call Shield") : (c.author_label ?? "A user"),
          kind: c.author_kind === "system" ? "system" : "own",
          at: c.created_at,
          body: c.body,
        }))}
      />
      <form onSubmit={submit} aria-label="New comment">
        <TextField
          label="New comment"
          name="body"
          rows={3}
          required
          maxLength={10_000}
          value={body}
          error={add.error}
          onChange={(e) => setBody(e.target.value)}
        />
        <button type="submit" className="primary" disabled={add.isPending || !body.trim()}>
          Add comment
        </button>
        <ErrorBox error={add.error} />
      </form>
    </section>
  );
}
