// The SIP dialog of a call the node places itself (RFC 3261 §12.1.2, we are the UAC): its
// requests (INVITE, ACK, BYE) built from what the dialog holds.
import { randomBytes } from "node:crypto";
import type { SipRequest } from "../sip/message.ts";
import { BRANCH_MAGIC } from "../sip/transactions.ts";
import type { Endpoint } from "../sip/transport.ts";

export type UacDialog = {
  callId: string;
  localTag: string;
  /** The callee's tag, from its first response with one. */
  remoteTag: string | null;
  localUri: string;
  remoteUri: string;
  /** The Request-URI of the INVITE, then the callee's Contact once it answers. */
  remoteTarget: string;
  endpoint: Endpoint;
  localSeq: number;
};

const EMPTY = new Uint8Array(0);
export const newTag = () => randomBytes(8).toString("hex");

/** A request inside the dialog; an ACK takes the INVITE's CSeq number (`seq`), others the next one. */
export function requestOn(
  dialog: UacDialog,
  local: { address: string; port: number },
  method: string,
  body: Uint8Array = EMPTY,
  seq?: number,
): SipRequest {
  const cseq = seq ?? ++dialog.localSeq;
  const transport = dialog.endpoint.protocol;
  const to = dialog.remoteTag ? `${dialog.remoteUri};tag=${dialog.remoteTag}` : dialog.remoteUri;
  const headers: SipRequest["headers"] = [
    [
      "Via",
      `SIP/2.0/${transport.toUpperCase()} ${local.address}:${local.port};branch=${BRANCH_MAGIC}${randomBytes(10).toString("hex")};rport`,
    ],
    ["Max-Forwards", "70"],
    ["From", `${dialog.localUri};tag=${dialog.localTag}`],
    ["To", to],
    ["Call-ID", dialog.callId],
    ["CSeq", `${cseq} ${method}`],
    ["Contact", `<sip:${local.address}:${local.port}${transport === "udp" ? "" : `;transport=${transport}`}>`],
    ["User-Agent", "call-shield"],
  ];
  if (body.length > 0) headers.push(["Content-Type", "application/sdp"]);
  return { kind: "request", method, uri: dialog.remoteTarget, version: "SIP/2.0", headers, body };
}
