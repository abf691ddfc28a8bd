// A ticket's conversation: the opening message, then the messages of the account and of support,
// oldest first; and a new message (POST /support/tickets/{id}/messages), which reopens a closed ticket.
import { useMutation, useQueryClient } from "@tanstack/react-query";
import { useState, type FormEvent } from "react";
import { api, must, type Schemas } from "../../api/client.ts";
import { ErrorBox, TextField } from "../../components/ui.tsx";
import { featureUsed } from "../../lib/events.ts";
import { Thread, type ThreadEntry } from "../cases/case-values.tsx";

type Ticket = Schemas["SupportTicketDetail"];

const entries = (ticket: Ticket): ThreadEntry[] => [
  { id: "opening", author: ticket.created_by ?? "You", kind: "own", at: ticket.created_at, body: ticket.body },
  ...ticket.messages.map((m): ThreadEntry => ({
    id: m.id,
    author: m.author_kind === "support" ? `${m.author_label ?? "Call Shield"} (support)` : (m.author_label ?? "A user"),
    kind: m.author_kind === "support" ? "support" : "own",
    at: m.created_at,
    body: m.body,
  })),
];

export function TicketThread({ ticket }: { ticket: Ticket }) {
  const queries = useQueryClient();
  const [body, setBody] = useState("");
  const send = useMutation({
    mutationFn: () =>
      must(api.POST("/support/tickets/{ticket_id}/messages", { params: { path: { ticket_id: ticket.id } }, body: { body } })),
    onSuccess: async () => {
      featureUsed("ticket.message");
      setBody("");
      await queries.invalidateQueries({ queryKey: ["ticket", ticket.id] });
      void queries.invalidateQueries({ queryKey: ["tickets"] });
    },
  });
  const submit = (event: FormEvent) => {
    event.preventDefault();
    send.mutate();
  };
  const closed = ticket.status === "closed";

  return (
    <section className="card" aria-labelledby="messages">
      <h2 id="messages">Messages</h2>
      <Thread label="Messages, oldest first" entries={entries(ticket)} />
      <form onSubmit={submit} aria-label="New message">
        <TextField
          label="New message"
          name="body"
          rows={4}
          required
          maxLength={20_000}
          value={body}
          error={send.error}
          hint={closed ? "This ticket is closed: sending a message reopens it." : "Support's replies appear in this thread."}
          onChange={(e) => setBody(e.target.value)}
        />
        <button type="submit" className="primary" disabled={send.isPending || !body.trim()}>
          {closed ? "Send and reopen" : "Send"}
        </button>
        <ErrorBox error={send.error} />
      </form>
    </section>
  );
}
