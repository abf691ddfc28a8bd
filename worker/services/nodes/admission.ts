// Call admission, the one round trip a SIP node makes before it lets a call through: the
// account's AccountLedger decides alone, from the admission state it holds (whitelist entry and
// sub-customer by dial prefix, account status, controlled numbers, route, port and credit), and
// sends the call's record to D1 through its outbox. The node names the account from its copy of
// the whitelist; without it (an older node) the source is looked up in D1 first. A source on no
// whitelist is ignored (the node answers nothing); any other refusal carries its SIP code.
import type { AdmitRequest, AdmitResponse } from "../../../schema/node-api.ts";
import type { AdmitCallResult, CallLimits, OwnCallRequest } from "../../../durable-objects/call-ledger/call-ledger.ts";
import { accountHolding, destinationTarget, syncAdmissionState } from "../trunk/admission-state.ts";
import type { Services } from "../context.ts";
import { agentDestinationOf, linkTestCallRecord, testCallToAdmit, unverifiedPart } from "../placed-calls/test-calls.ts";
import type { TestCallRow } from "../placed-calls/test-call-dispatch.ts";
import { signPlacedCall } from "../placed-calls/call-signing.ts";
import { mayActForNode } from "./node-identity.ts";
import { placedCallPolicyOf, refusedRange } from "../placed-calls/placed-calls.ts";
import { VERIFY_CALL_MAX_SECONDS, verificationRoute, verifiedNumberOf } from "../placed-calls/verified-numbers.ts";
import type { LedgerStub } from "../../lib/durable-objects.ts";
import type { Config } from "../../env.ts";
import { newId } from "../../lib/ids.ts";
import { spendDialerToken } from "../placed-calls/dialer.ts";
import { nowIso } from "../../lib/time.ts";

export async function admitCall(s: Services, request: AdmitRequest): Promise<AdmitResponse> {
  if (request.origin === "test") return admitTestCall(s, request);
  if (request.origin === "dialer") return admitDialerCall(s, request);
  const customerId = request.customer_id ?? (await accountHolding(s.db, request.src_ip));
  if (!customerId) return { decision: "ignore" };
  const input = () => ({ request, callId: newId(), now: nowIso(), limits: callLimits(s.config) });
  return ticketOf(s, await withAdmissionState(s, customerId, (ledger) => ledger.admitCall(input())));
}

/**
 * A test call the node was asked to originate: admitted through its account's ledger on the test
 * call's own destination, number and caller ID (no whitelist entry), charged like any call; the
 * test call links to the record. One that is gone, cancelled or expired meanwhile never rings, nor
 * one whose number or caller ID stopped being allowed since it was asked for. A verification call
 * goes on the platform's own route instead, with no record.
 */
async function admitTestCall(s: Services, request: AdmitRequest): Promise<AdmitResponse> {
  if (!request.test_call_id) return { decision: "reject", sip_code: 404, reason: "test_call_not_found", call_id: null };
  const found = await testCallToAdmit(s, request.test_call_id, request.sip_call_id);
  if ("decision" in found) return found;
  // Only the node the test call was dispatched to places it.
  if (!mayActForNode(s.config, request.node_id, found.nodeId)) return refused("test_call_other_node");
  const policy = await placedCallPolicyOf(s, found.customerId);
  if (refusedRange(found.number, policy.allowPrefixes)) return refused("number_not_allowed");
  if (found.purpose === "verify") return admitVerificationCall(s, found);
  const unverified = await unverifiedPart(s, found.customerId, found);
  if (unverified) return refused(unverified);
  // Voice-agent mode: the agent the answered number is bridged to, checked before anything is reserved.
  const agent = found.agentDestinationId ? await agentDestinationOf(s, found.customerId, found.agentDestinationId) : null;
  if (found.agentDestinationId && !agent) {
    return { decision: "reject", sip_code: 404, reason: "agent_destination_not_found", call_id: null };
  }
  const own: OwnCallRequest = {
    origin: "test",
    destination_id: found.destinationId,
    dialed: found.number,
    ani: found.callerId ?? s.config.PLATFORM_CALLER_ID,
    sip_call_id: request.sip_call_id,
    node_id: request.node_id,
    boot_id: request.boot_id,
    src_ip: request.src_ip,
    captured_headers: request.captured_headers,
  };
  const input = () => ({ request: own, callId: newId(), now: nowIso(), limits: callLimits(s.config), caps: policy.caps });
  const answer = await withAdmissionState(s, found.customerId, (ledger) => ledger.admitOwnCall(input()));
  if ((answer.decision === "admit" || answer.decision === "reject") && answer.call_id)
    await linkTestCallRecord(s, found.id, answer.call_id, request.node_id);
  const ticket = await placedTicketOf(s, answer, "test");
  return ticket.decision === "admit" && agent ? { ...ticket, agent_destination: await destinationTarget(s.config, agent) } : ticket;
}

/** A refusal of a placed call before anything is reserved (nothing recorded). */
const refused = (reason: string): AdmitResponse => ({ decision: "reject", sip_code: 403, reason, call_id: null });

/**
 * A verification call: on the platform's route (VERIFY_ROUTE), never the account's destinations,
 * for the time the code takes, relayed only, and with no call record (nothing reported to the
 * ledger, recorded or uploaded), so the code reaches only whoever answers the number.
 */
async function admitVerificationCall(s: Services, found: TestCallRow): Promise<AdmitResponse> {
  const route = verificationRoute(s.config);
  if (!route) return { decision: "reject", sip_code: 503, reason: "verification_route_unavailable", call_id: null };
  const callId = newId();
  return {
    decision: "admit",
    call_id: callId,
    customer_id: found.customerId,
    dialed: found.number,
    ani: s.config.PLATFORM_CALLER_ID,
    destination: route,
    max_call_seconds: VERIFY_CALL_MAX_SECONDS,
    granted_seconds: VERIFY_CALL_MAX_SECONDS,
    processing: "relay_only",
    sampled: false,
    sub_customer: null,
    route: "forced",
    call_record: false,
    account_assertion: await signPlacedCall(s.config, {
      customer_id: found.customerId,
      call_id: callId,
      origin: "verify",
      number: found.number,
    }),
  };
}

/** Asks the account's ledger; its first call since the ledger was made loads the admission state from D1 once. */
async function withAdmissionState(s: Services, customerId: string, ask: (ledger: LedgerStub) => Promise<AdmitCallResult>) {
  const ledger = s.ledger(customerId);
  let answer = await ask(ledger);
  if (answer.decision === "need_state") {
    await syncAdmissionState(s, customerId);
    answer = await ask(ledger);
  }
  return answer;
}

async function ticketOf(s: Services, answer: AdmitCallResult): Promise<AdmitResponse> {
  if (answer.decision === "need_state") return { decision: "ignore" };
  if (answer.decision !== "admit") return answer;
  return { ...answer, destination: await destinationTarget(s.config, answer.destination) };
}

/** The ticket of a call the platform places: its account, signed, for the INVITE's account header. */
async function placedTicketOf(s: Services, answer: AdmitCallResult, origin: "test" | "dialer"): Promise<AdmitResponse> {
  const ticket = await ticketOf(s, answer);
  if (ticket.decision !== "admit") return ticket;
  const claims = { customer_id: ticket.customer_id, call_id: ticket.call_id, origin, number: ticket.dialed };
  return { ...ticket, account_assertion: await signPlacedCall(s.config, claims) };
}

export const callLimits = (config: Config): CallLimits => ({
  leaseMs: config.NODE_LEASE_SECONDS * 1000,
  sliceSeconds: config.CREDIT_SLICE_SECONDS,
  capSeconds: config.MAX_CALL_SECONDS,
  minGrantSeconds: config.MIN_GRANT_SECONDS,
});

/** A token that is not the named account's, or is expired or spent: refused before anything is reserved. */
const DIALER_TOKEN_REFUSED: AdmitResponse = { decision: "reject", sip_code: 403, reason: "dialer_token_refused", call_id: null };

/**
 * A web dialer's call: admitted by its token (spent here, once), never by the whitelist; then
 * routed, given a port and credit, charged and recorded as the account's own call.
 */
async function admitDialerCall(s: Services, request: AdmitRequest): Promise<AdmitResponse> {
  const { customer_id: customerId, dialer_token: token } = request;
  const callId = newId();
  const spent = customerId && token ? await spendDialerToken(s, token, customerId, callId) : null;
  if (!customerId || !spent) return DIALER_TOKEN_REFUSED;
  const policy = await placedCallPolicyOf(s, customerId);
  if (refusedRange(request.dialed, policy.allowPrefixes)) return refused("number_not_allowed");
  // The caller ID the token was minted with may have been verified by another account since.
  if (spent.callerId && !(await verifiedNumberOf(s, customerId, spent.callerId))) return refused("caller_id_not_verified");
  const own: OwnCallRequest = {
    origin: "dialer",
    dialed: request.dialed,
    // What the browser puts in From is not a caller ID: the verified number the token was minted with is.
    ani: spent.callerId,
    sip_call_id: request.sip_call_id,
    node_id: request.node_id,
    boot_id: request.boot_id,
    src_ip: request.src_ip,
    captured_headers: request.captured_headers,
  };
  const input = () => ({ request: own, callId, now: nowIso(), limits: callLimits(s.config), caps: policy.caps });
  const answer = await withAdmissionState(s, customerId, (ledger) => ledger.admitOwnCall(input()));
  if (answer.decision === "need_state" || answer.decision === "ignore") return DIALER_TOKEN_REFUSED;
  return placedTicketOf(s, answer, "dialer");
}
