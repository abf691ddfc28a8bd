// SIP messages as the rest of the node sees them (RFC 3261 §7). Header names are kept in
// their canonical long form (compact forms such as "v" or "f" are expanded by the parser);
// values keep their order, and a header that appears several times keeps every value.

export type SipRequest = {
  kind: "request";
  method: string;
  uri: string;
  version: "SIP/2.0";
  headers: SipHeaders;
  body: Uint8Array;
};

export type SipResponse = {
  kind: "response";
  status: number;
  reason: string;
  version: "SIP/2.0";
  headers: SipHeaders;
  body: Uint8Array;
};

export type SipMessage = SipRequest | SipResponse;

/** Ordered header fields: [canonical name, raw value]; one entry per value. */
export type SipHeaders = Array<[string, string]>;

export type Via = {
  transport: string;
  host: string;
  port: number | null;
  branch: string | null;
  received: string | null;
  rport: number | "" | null;
  params: Record<string, string | null>;
};

export type NameAddr = {
  displayName: string | null;
  uri: string;
  tag: string | null;
  params: Record<string, string | null>;
};

export type CSeq = { seq: number; method: string };

/** Why a datagram or stream chunk could not be read as SIP; `status` is what to answer when one can. */
export class SipParseError extends Error {
  readonly status: number;
  constructor(message: string, status = 400) {
    super(message);
    this.status = status;
  }
}

/** Limits on what the parser accepts, so no input can make it allocate without bound. */
export type ParseLimits = { maxMessageBytes: number; maxHeaders: number; maxHeaderLineBytes: number };

export const DEFAULT_LIMITS: ParseLimits = { maxMessageBytes: 65_535, maxHeaders: 128, maxHeaderLineBytes: 8_192 };
