// The certificate a PASSporT's x5u names, fetched by the node. The URL comes from whoever placed
// the call, so the fetch goes only where the node may send anything (AddressPolicy: no private,
// link-local or CGNAT address unless the operator allows it), over https (http only to loopback,
// for a lab), to the address that was checked (the connection is pinned to it: a name cannot
// resolve elsewhere between the check and the connect), with no redirect, a bounded body and a
// 2 s limit on the whole exchange.
import { lookup } from "node:dns/promises";
import { request as httpRequest, type IncomingMessage } from "node:http";
import { request as httpsRequest } from "node:https";
import { isIP, type LookupFunction } from "node:net";
import type { AddressPolicy } from "../sip/address-policy.ts";

export const X5U_TIMEOUT_MS = 2_000;
/** A certificate chain is a few KiB; anything larger is not one. */
const MAX_BODY = 64 * 1024;

export type X5uBody = { bytes: Buffer; maxAgeSeconds: number | null };
export type X5uFailure = { reason: "x5u_refused" | "x5u_unreachable"; detail: string };

export class X5uError extends Error {
  readonly reason: X5uFailure["reason"];
  constructor(reason: X5uFailure["reason"], detail: string) {
    super(detail);
    this.reason = reason;
  }
}

type Target = { url: URL; address: string; family: 4 | 6 };

/**
 * Where `x5u` may be fetched from: its address, checked against the policy; throws x5u_refused
 * (a scheme other than https, http to a host that is not loopback, an address the node may not reach).
 */
export async function x5uTarget(x5u: string, policy: Pick<AddressPolicy, "allows">): Promise<Target> {
  let url: URL;
  try {
    url = new URL(x5u);
  } catch {
    throw new X5uError("x5u_refused", "not a URL");
  }
  if (url.protocol !== "https:" && url.protocol !== "http:") throw new X5uError("x5u_refused", `${url.protocol} is not https`);
  if (url.username || url.password) throw new X5uError("x5u_refused", "credentials in the URL");
  const host = url.hostname.replace(/^\[|\]$/g, "");
  const addresses = isIP(host) ? [{ address: host, family: isIP(host) }] : await resolve(host);
  // Every address the name has must be allowed: the connection could otherwise be steered to any.
  const refused = addresses.find((a) => !policy.allows(a.address));
  if (refused) throw new X5uError("x5u_refused", `${refused.address} is not an address the node may reach`);
  const first = addresses[0]!;
  if (url.protocol === "http:" && !isLoopback(first.address)) throw new X5uError("x5u_refused", "http is allowed to loopback only");
  return { url, address: first.address, family: first.family === 6 ? 6 : 4 };
}

async function resolve(host: string): Promise<Array<{ address: string; family: number }>> {
  try {
    const found = await lookup(host, { all: true, verbatim: true });
    if (found.length === 0) throw new Error("no address");
    return found;
  } catch (err) {
    throw new X5uError("x5u_unreachable", `${host}: ${String(err)}`);
  }
}

function isLoopback(address: string): boolean {
  return address === "::1" || address.startsWith("127.");
}

/** GETs the checked target: 200 with a body of at most 64 KiB, within `timeoutMs`; throws x5u_unreachable otherwise. */
export function fetchX5u(target: Target, timeoutMs = X5U_TIMEOUT_MS): Promise<X5uBody> {
  const pinned: LookupFunction = (_host, options, callback) => {
    if (options.all) callback(null, [{ address: target.address, family: target.family }]);
    else callback(null, target.address, target.family);
  };
  const send = target.url.protocol === "https:" ? httpsRequest : httpRequest;
  return new Promise<X5uBody>((resolvePromise, reject) => {
    const fail = (detail: string) => reject(new X5uError("x5u_unreachable", detail));
    const req = send(target.url, {
      method: "GET",
      lookup: pinned,
      headers: { accept: "application/pem-certificate-chain, application/pkix-cert" },
    });
    const timer = setTimeout(() => {
      req.destroy();
      fail(`no answer in ${timeoutMs} ms`);
    }, timeoutMs);
    req.on("error", (err) => {
      clearTimeout(timer);
      fail(String(err));
    });
    req.on("response", (res) => {
      readBody(res).then(
        (bytes) => {
          clearTimeout(timer);
          if (res.statusCode !== 200) return fail(`HTTP ${res.statusCode}`);
          resolvePromise({ bytes, maxAgeSeconds: maxAge(res.headers["cache-control"]) });
        },
        (err: unknown) => {
          clearTimeout(timer);
          req.destroy();
          fail(String(err));
        },
      );
    });
    req.end();
  });
}

function readBody(res: IncomingMessage): Promise<Buffer> {
  return new Promise((resolveBody, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    res.on("data", (chunk: Buffer) => {
      size += chunk.length;
      if (size > MAX_BODY) return reject(new Error(`body over ${MAX_BODY} bytes`));
      chunks.push(chunk);
    });
    res.on("end", () => resolveBody(Buffer.concat(chunks)));
    res.on("error", reject);
    res.on("aborted", () => reject(new Error("aborted")));
  });
}

/** Cache-Control's max-age in seconds (0 for no-store and no-cache); null when it says none. */
function maxAge(value: string | undefined): number | null {
  if (!value) return null;
  if (/\bno-(?:store|cache)\b/i.test(value)) return 0;
  const match = /\bmax-age\s*=\s*"?(\d{1,10})/i.exec(value);
  return match ? Number(match[1]) : null;
}
