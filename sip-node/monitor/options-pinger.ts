// One SIP OPTIONS to a destination, timed: what a monitor check or an on-demand check sends.
import { randomBytes } from "node:crypto";
import { lookup } from "node:dns/promises";
import { isIP } from "node:net";
import type { OptionsResult } from "../../schema/node-api.ts";
import type { SipRequest } from "../sip/message.ts";
import { BRANCH_MAGIC, type TransactionLayer } from "../sip/transactions.ts";
import type { Protocol } from "../sip/transport.ts";

export const CHECK_TIMEOUT_MS = 2_000;

export async function sendOptions(
  layer: TransactionLayer,
  local: { address: string; port: number },
  target: { host: string; port: number; transport: Protocol },
  timeoutMs = CHECK_TIMEOUT_MS,
): Promise<OptionsResult> {
  const address = isIP(target.host)
    ? target.host
    : await lookup(target.host).then(
        (r) => r.address,
        () => null,
      );
  if (!address) return { code: null, rtt_ms: null, error: `cannot resolve ${target.host}` };
  // Not a port scanner of the node's own network: a refused address is never sent to.
  if (!layer.allowsDestination({ address, port: target.port, protocol: target.transport })) {
    return { code: null, rtt_ms: null, error: `${target.host} is in an address range this node does not send to` };
  }
  const tag = randomBytes(6).toString("hex");
  const uri = `sip:${target.host}:${target.port}`;
  const request: SipRequest = {
    kind: "request",
    method: "OPTIONS",
    uri,
    version: "SIP/2.0",
    headers: [
      [
        "Via",
        `SIP/2.0/${target.transport.toUpperCase()} ${local.address}:${local.port};branch=${BRANCH_MAGIC}${randomBytes(10).toString("hex")};rport`,
      ],
      ["Max-Forwards", "70"],
      ["From", `<sip:monitor@${local.address}>;tag=${tag}`],
      ["To", `<${uri}>`],
      ["Call-ID", `${randomBytes(12).toString("hex")}@${local.address}`],
      ["CSeq", "1 OPTIONS"],
      ["Accept", "application/sdp"],
      ["User-Agent", "call-shield monitor"],
    ],
    body: new Uint8Array(0),
  };
  const started = performance.now();
  return new Promise<OptionsResult>((resolve) => {
    const timer = setTimeout(() => resolve({ code: null, rtt_ms: null, error: `no response in ${timeoutMs / 1000} s` }), timeoutMs);
    layer.sendRequest(request, { address, port: target.port, protocol: target.transport }, (response) => {
      // Only a final response counts; a late one after the timeout is ignored.
      if (response && response.status < 200) return;
      clearTimeout(timer);
      resolve(
        response
          ? { code: response.status, rtt_ms: Math.round(performance.now() - started), error: null }
          : { code: null, rtt_ms: null, error: "no response" },
      );
    });
  });
}
