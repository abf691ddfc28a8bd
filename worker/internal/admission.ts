// Call admission, the one round trip a SIP node makes before it lets a call through: the
// account's AccountLedger decides alone, from the admission state it holds (whitelist entry and
// sub-customer by dial prefix, account status, controlled numbers, route, port and credit), and
// sends the call's record to D1 through its outbox. The node names the account from its copy of
// the whitelist; without it (an older node) the source is looked up in D1 first. A source on no
// whitelist is ignored (the node answers nothing); any other refusal carries its SIP code.
import type { AdmissionTicket, AdmitRequest, AdmitResponse } from "../../schema/node-api.ts";
import type { AdmissionDestination } from "../../durable-objects/call-admission.ts";
import type { CallLimits } from "../../durable-objects/call-ledger.ts";
import { accountHolding, syncAdmissionState } from "../services/admission-state.ts";
import type { Services } from "../services/context.ts";
import type { Config } from "../env.ts";
import { newId } from "../lib/ids.ts";
import { decryptSecret, destinationSecretContext } from "../lib/secrets.ts";
import { nowIso } from "../lib/time.ts";

export async function admitCall(s: Services, request: AdmitRequest): Promise<AdmitResponse> {
  const customerId = request.customer_id ?? (await accountHolding(s.db, request.src_ip));
  if (!customerId) return { decision: "ignore" };
  const ledger = s.ledger(customerId);
  const input = () => ({ request, callId: newId(), now: nowIso(), limits: callLimits(s.config) });
  let answer = await ledger.admitCall(input());
  if (answer.decision === "need_state") {
    // The account's first call since its ledger was made: its admission state comes from D1 once.
    await syncAdmissionState(s, customerId);
    answer = await ledger.admitCall(input());
  }
  if (answer.decision === "need_state") return { decision: "ignore" };
  if (answer.decision !== "admit") return answer;
  return { ...answer, destination: await targetOf(s.config, answer.destination) };
}

export const callLimits = (config: Config): CallLimits => ({
  leaseMs: config.NODE_LEASE_SECONDS * 1000,
  sliceSeconds: config.CREDIT_SLICE_SECONDS,
  capSeconds: config.MAX_CALL_SECONDS,
  minGrantSeconds: config.MIN_GRANT_SECONDS,
});

async function targetOf(config: Config, d: AdmissionDestination): Promise<AdmissionTicket["destination"]> {
  const password = d.authPasswordEnc
    ? await decryptSecret(config.ENCRYPTION_KEY, d.authPasswordEnc, destinationSecretContext(d.id, "auth_password"))
    : null;
  return {
    id: d.id,
    host: d.host,
    port: d.port,
    transport: d.transport,
    kind: d.kind,
    provider: d.provider,
    agent_id: d.agentId,
    tech_prefix: d.techPrefix,
    auth: password !== null && d.authUsername ? { username: d.authUsername, password, realm: d.authRealm } : null,
  };
}
