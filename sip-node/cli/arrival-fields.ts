// What an INVITE reaching the hosted-number listener says about its caller, as the Worker's CLI
// check compares it with the caller ID sent (CliArrival): the number dialled, From's user and
// display name, the first P-Asserted-Identity's user, the Privacy values (RFC 3323) and the
// Identity header (RFC 8224) as they arrived. A part that cannot be read is absent (null), never
// a reason to refuse the call: what a route did to the caller ID is the answer sought.
import type { CliArrival } from "../../schema/node-api.ts";
import { header, headers } from "../sip/headers.ts";
import type { SipRequest } from "../sip/message.ts";
import { parseNameAddr, parseUri } from "../sip/parser.ts";
import type { Endpoint } from "../sip/transport.ts";

/** The user part of a URI (a tel URI's number); null when there is none or the URI does not parse. */
function userOf(uri: string): string | null {
  try {
    return parseUri(uri).user || null;
  } catch {
    return null;
  }
}

/** A name-addr header's URI and display name; null when it does not parse. */
function nameAddrOf(value: string | null): { user: string | null; display: string | null } | null {
  if (value === null) return null;
  try {
    const { uri, displayName } = parseNameAddr(value);
    return { user: userOf(uri), display: displayName?.trim() || null };
  } catch {
    return null;
  }
}

const clip = (text: string | null, max: number) => (text === null ? null : text.slice(0, max));

/** The Privacy header's values (every Privacy header, values split on ';'), lower-cased, at most 8. */
export function privacyValues(request: SipRequest): string[] {
  return headers(request, "Privacy")
    .flatMap((value) => value.split(";"))
    .map((value) => value.trim().toLowerCase())
    .filter((value) => value !== "")
    .slice(0, 8)
    .map((value) => value.slice(0, 32));
}

/** The arrival the Worker is told of, for an INVITE from `from`. */
export function arrivalOf(request: SipRequest, from: Endpoint, nodeId: string, now = new Date()): CliArrival {
  const to = nameAddrOf(header(request, "To"));
  const caller = nameAddrOf(header(request, "From"));
  const asserted = nameAddrOf(header(request, "P-Asserted-Identity"));
  return {
    node_id: nodeId,
    sip_call_id: (header(request, "Call-ID") ?? "").slice(0, 256),
    dialled: (userOf(request.uri) ?? to?.user ?? "").slice(0, 128),
    from_user: clip(caller?.user ?? null, 128),
    from_display: clip(caller?.display ?? null, 128),
    asserted: clip(asserted?.user ?? null, 128),
    privacy: privacyValues(request),
    identity: clip(header(request, "Identity"), 8192),
    src_ip: from.address.slice(0, 64),
    src_port: from.port,
    received_at: now.toISOString(),
  };
}
