// The kinds and statuses of a support ticket, as the API names them.
export const TICKET_STATUSES = ["open", "answered", "closed"] as const;
export const TICKET_KINDS = ["question", "bug", "feature", "analysis", "billing"] as const;
export type TicketKind = (typeof TICKET_KINDS)[number];

export const KIND_LABELS: Record<TicketKind, string> = {
  question: "Question",
  bug: "Bug",
  feature: "Feature request",
  analysis: "Dispute of a verdict",
  billing: "Billing",
};
