// Where an incoming CANCEL is answered, and nowhere else (RFC 3261 §9.2): 481 when it matches no
// INVITE of a caller's we are answering (same branch and sent-by); otherwise 200, and if that
// INVITE has no final answer yet, its call is cancelled (Call.cancelledByCaller: 487 to the
// caller, CANCEL to the callee).
import { reasonPhrase } from "../sip/causes.ts";
import type { SipRequest } from "../sip/message.ts";
import { responseTo, type ServerTransaction, type TransactionLayer } from "../sip/transactions.ts";

/** The call a caller's INVITE started, as a CANCEL sees it. */
export type CancellableCall = { cancelledByCaller(): void };

export function answerCancel(
  cancel: SipRequest,
  tx: ServerTransaction,
  layer: Pick<TransactionLayer, "inviteFor">,
  callOf: (invite: ServerTransaction) => CancellableCall | undefined,
): void {
  const invite = layer.inviteFor(cancel);
  if (!invite) return tx.respond(responseTo(cancel, 481, reasonPhrase(481)));
  tx.respond(responseTo(cancel, 200, reasonPhrase(200)));
  if (invite.state === "proceeding") callOf(invite)?.cancelledByCaller();
}
