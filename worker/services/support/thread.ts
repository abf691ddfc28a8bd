// A case's comments and a ticket's messages are one kind of thread: entries oldest first, each
// naming its author's kind (a user or the system; the customer or support) and label.

type ThreadEntryRow = { id: string; authorKind: string; authorLabel: string | null; body: string; createdAt: string };

export const threadEntryOut = <Row extends ThreadEntryRow>(row: Row) => ({
  id: row.id,
  author_kind: row.authorKind as Row["authorKind"],
  author_label: row.authorLabel,
  body: row.body,
  created_at: row.createdAt,
});
