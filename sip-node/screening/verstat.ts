// An upstream carrier's verification result (ATIS-1000074 §5.3.1, 3GPP TS 24.229): the verstat
// parameter it puts on P-Asserted-Identity's or From's URI, in the user part of a SIP URI
// (`sip:+14155550100;verstat=TN-Validation-Passed@carrier.example;user=phone`), as a URI
// parameter (`...@carrier.example;verstat=...`), or on a tel URI.
import { Verstat, type IdentityFacts } from "../../schema/screening.ts";
import { header } from "../sip/headers.ts";
import type { SipRequest } from "../sip/message.ts";

const VERSTAT = /;verstat=([A-Za-z-]{1,40})/i;
type VerstatValue = NonNullable<IdentityFacts["verstat"]>;

const canonical = new Map<string, VerstatValue>(Verstat.options.map((value) => [value.toLowerCase(), value]));

/** P-Asserted-Identity's verstat, else From's; null when neither carries a known value. */
export function verstatOf(request: SipRequest): VerstatValue | null {
  for (const name of ["P-Asserted-Identity", "From"]) {
    const found = verstatIn(header(request, name));
    if (found) return found;
  }
  return null;
}

/** Read from the whole value: a P-Asserted-Identity may list a SIP and a tel URI, either may carry it. */
function verstatIn(value: string | null): VerstatValue | null {
  const match = value === null ? null : VERSTAT.exec(value);
  return match ? (canonical.get(match[1]!.toLowerCase()) ?? null) : null;
}

/** The user part of a caller's URI as a caller ID: its parameters (verstat, isub...) left out. */
export function callerIdOf(user: string | null): string | null {
  if (user === null) return null;
  return user.split(";")[0] || null;
}
