// Telephone numbers as they arrive in SIP (user parts of URIs): kept as dialled, compared
// as digits.

/** Keeps digits, * and #, and a leading +; drops spaces, dashes, dots and brackets. */
export function normalizeNumber(raw: string): string {
  const trimmed = raw.trim();
  const body = trimmed.replace(/[^0-9*#]/g, "");
  return trimmed.startsWith("+") ? `+${body}` : body;
}

/** The number without its leading +, for prefix matching and controlled-number lookups. */
export const digitsOf = (raw: string): string => normalizeNumber(raw).replace(/^\+/, "");
