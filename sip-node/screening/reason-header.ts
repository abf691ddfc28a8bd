// The Reason header (RFC 3326) of a final answer the node gives for the Worker: the SIP cause and
// the Worker's reason as its text, so a 603 names the screening rule that refused the call.

/** Longest text we put in it: a rule's name and a few words. */
const MAX_TEXT = 200;

/** `SIP;cause=<code>;text="<reason>"`, the reason made a safe quoted-string (no control characters, quotes escaped). */
export function reasonHeader(code: number, reason: string): string {
  const text = reason
    .replace(/[\u0000-\u001f\u007f]+/g, " ")
    .slice(0, MAX_TEXT)
    .replace(/["\\]/g, "\\$&");
  return `SIP;cause=${code};text="${text}"`;
}
