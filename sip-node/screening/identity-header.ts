// The Identity header (RFC 8224 §4.1): a PASSporT in JWS compact form followed by its parameters,
// `<jws>;info=<https://cert.example/x.pem>;alg=ES256;ppt=shaken`. A request may carry several
// (one Identity header each, or comma-separated in one): each is read apart.
import { headers } from "../sip/headers.ts";
import type { SipRequest } from "../sip/message.ts";

export type IdentityValue = {
  /** The PASSporT as sent: header.payload.signature, base64url. */
  token: string;
  /** The info parameter's URI without its angle brackets; null when absent. */
  info: string | null;
  /** The ppt parameter, lower-cased; null when absent. */
  ppt: string | null;
};

/** Values read at most from one request: a longer list is someone's flood, not a carrier's. */
const MAX_VALUES = 8;

/** Every Identity value of `request`, in message order. */
export function identityValues(request: SipRequest): IdentityValue[] {
  return headers(request, "Identity")
    .flatMap((value) => splitOutside(value, ","))
    .slice(0, MAX_VALUES)
    .map(parseValue)
    .filter((value) => value.token !== "");
}

/** Splits `text` at each `separator` outside <...> and quotes (one pass: no backtracking). */
function splitOutside(text: string, separator: string): string[] {
  const parts: string[] = [];
  let start = 0;
  let angle = false;
  let quoted = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (quoted) {
      if (c === "\\") i++;
      else if (c === '"') quoted = false;
    } else if (c === '"') quoted = true;
    else if (c === "<") angle = true;
    else if (c === ">") angle = false;
    else if (c === separator && !angle) {
      parts.push(text.slice(start, i));
      start = i + 1;
    }
  }
  parts.push(text.slice(start));
  return parts;
}

function parseValue(text: string): IdentityValue {
  const [token = "", ...rest] = splitOutside(text, ";");
  const params = new Map<string, string>();
  for (const param of rest) {
    const equals = param.indexOf("=");
    const name = (equals < 0 ? param : param.slice(0, equals)).trim().toLowerCase();
    if (name && !params.has(name)) params.set(name, equals < 0 ? "" : param.slice(equals + 1).trim());
  }
  const info = params.get("info");
  return {
    token: token.trim(),
    info: info ? info.replace(/^<|>$/g, "") : null,
    ppt: params.get("ppt")?.replace(/^"|"$/g, "").toLowerCase() || null,
  };
}
