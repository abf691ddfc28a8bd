// The admission state of an account (its status and plan, whitelist entries, destinations,
// routing rules, controlled numbers) as the account's Durable Object holds it, so a call is
// admitted without reading D1. D1 stays the record; every service verb that changes one of
// those tables calls syncAdmissionState after its write, and the ledger takes the new state.
import type { Services } from "./context.ts";

/** Brings the account's admission state in its Durable Object up to date with D1. */
export async function syncAdmissionState(_services: Services, _customerId: string): Promise<void> {
  // Filled in with the call ledger (#12): admission reads D1 directly until then.
}
