// A SIP dialog as the node keeps it to send requests inside it (RFC 3261 §12): the caller's leg of
// a B2BUA call, where we are the UAS, and every leg the node dials itself (outbound-leg.ts).
import { randomBytes } from "node:crypto";
import { header, headers, setHeader } from "../sip/headers.ts";
import { reasonPhrase } from "../sip/causes.ts";
import type { SipRequest, SipResponse } from "../sip/message.ts";
import { parseNameAddr } from "../sip/parser.ts";
import { BRANCH_MAGIC, responseTo } from "../sip/transactions.ts";
import type { Endpoint } from "../sip/transport.ts";

export type Address = { address: string; port: number };

export type Dialog = {
  callId: string;
  localTag: string;
  /** The far end's tag, from its first response with one on a leg we dial. */
  remoteTag: string | null;
  /** Our URI in From (in To of the caller's INVITE on its leg); our tag is added to it as requests go. */
  localUri: string;
  remoteUri: string;
  /** The Request-URI of our requests: the far end's Contact once it answered. */
  remoteTarget: string;
  endpoint: Endpoint;
  /** The CSeq number of our last request in the dialog. */
  localSeq: number;
  /**
   * The proxies that asked to stay on the dialog's path (Record-Route, RFC 3261 §12.1): our
   * requests in it carry them as Route, in this order. The INVITE's, in order, on a leg we answered;
   * the 2xx's, reversed, on a leg we dialled. Empty: none did.
   */
  routeSet?: string[];
};

const EMPTY = new Uint8Array(0);
const token = (bytes: number) => randomBytes(bytes).toString("hex");

/**
 * The dialog a caller's INVITE opens on a leg we answer (RFC 3261 §12.1.1): our tag, their From as
 * the remote URI, their Contact as the target, their Record-Route as the route set.
 */
export function dialogOfInvite(invite: SipRequest, caller: Endpoint, localSeq = 1): Dialog {
  const from = parseNameAddr(header(invite, "From")!);
  const contact = header(invite, "Contact");
  return {
    callId: header(invite, "Call-ID")!,
    localTag: newTag(),
    remoteTag: from.tag,
    localUri: header(invite, "To")!,
    remoteUri: header(invite, "From")!,
    remoteTarget: contact ? parseNameAddr(contact).uri : from.uri,
    endpoint: caller,
    localSeq,
    routeSet: headers(invite, "Record-Route"),
  };
}

/** A fresh tag of ours for a dialog. */
export const newTag = (): string => token(8);

/** A fresh Call-ID of ours, for a leg we dial. */
export const newCallId = (local: Address): string => `${token(12)}@${local.address}`;

/** Our Contact, over the transport the peer uses. */
export function contactOf(local: Address, protocol: Endpoint["protocol"] = "udp"): string {
  const transport = protocol === "udp" ? "" : `;transport=${protocol}`;
  return `<sip:${local.address}:${local.port}${transport}>`;
}

export type RequestOptions = {
  body?: Uint8Array;
  /** Headers after the dialog's own. */
  headers?: Array<[string, string]>;
  /** The Content-Type header, when the body has one. */
  contentType?: string | null;
  /** The CSeq number (an ACK's is its INVITE's); by default the dialog's next, or its last for an ACK. */
  seq?: number;
};

/** A request we send inside `dialog`, to its remote target. */
export function requestOn(dialog: Dialog, local: Address, method: string, options: RequestOptions = {}): SipRequest {
  const body = options.body ?? EMPTY;
  const cseq = options.seq ?? (method === "ACK" ? dialog.localSeq : ++dialog.localSeq);
  const transport = dialog.endpoint.protocol.toUpperCase();
  const from = dialog.localUri.includes(";tag=") ? dialog.localUri : `${dialog.localUri};tag=${dialog.localTag}`;
  const to = dialog.remoteTag && !dialog.remoteUri.includes(";tag=") ? `${dialog.remoteUri};tag=${dialog.remoteTag}` : dialog.remoteUri;
  const request: SipRequest = {
    kind: "request",
    method,
    uri: dialog.remoteTarget,
    version: "SIP/2.0",
    headers: [
      ["Via", `SIP/2.0/${transport} ${local.address}:${local.port};branch=${BRANCH_MAGIC}${token(10)};rport`],
      ["Max-Forwards", "70"],
      ...(dialog.routeSet ?? []).map((route): [string, string] => ["Route", route]),
      ["From", from],
      ["To", to],
      ["Call-ID", dialog.callId],
      ["CSeq", `${cseq} ${method}`],
      ["Contact", contactOf(local, dialog.endpoint.protocol)],
      ["User-Agent", "call-shield"],
    ],
    body,
  };
  if (options.contentType) setHeader(request.headers, "Content-Type", options.contentType);
  request.headers.push(...(options.headers ?? []));
  return request;
}

/** Our answer to a request the far end sent inside `dialog`. */
export function responseIn(dialog: Dialog, request: SipRequest, status: number): SipResponse {
  return responseTo(request, status, reasonPhrase(status), dialog.localTag);
}
