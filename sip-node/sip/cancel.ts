// CANCEL of a pending INVITE (RFC 3261 §9.1): what the node sends when a caller gives up, a ring
// times out, or a test call is withdrawn before the far end answers.
import { header } from "./headers.ts";
import type { SipRequest } from "./message.ts";
import { parseCSeq } from "./parser.ts";

/** CANCEL for an INVITE: same Request-URI, Via, From, To and CSeq number (RFC 3261 §9.1). */
export function cancelOf(invite: SipRequest): SipRequest {
  return {
    kind: "request",
    method: "CANCEL",
    uri: invite.uri,
    version: "SIP/2.0",
    headers: [
      ["Via", header(invite, "Via")!],
      ["Max-Forwards", "70"],
      ["From", header(invite, "From")!],
      ["To", header(invite, "To")!],
      ["Call-ID", header(invite, "Call-ID")!],
      ["CSeq", `${parseCSeq(header(invite, "CSeq")!).seq} CANCEL`],
    ],
    body: new Uint8Array(0),
  };
}
