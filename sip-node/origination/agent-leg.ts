// Voice-agent mode of a test call: once the number answers, a second leg of ours to the account's
// voice-AI destination (the ticket's agent_destination), offered the law the number chose at the
// relay's caller side, so the relay bridges the two as the B2BUA bridges a call (and records the
// agent on the left, the number on the right). The agent is told which test call it is in and
// what it is asked to do (X-Call-Shield-Test-Call, X-Call-Shield-Instruction); the leg itself
// (digest challenge, ACK, CANCEL) is an OutboundLeg like any other.
import { PLACED_CALL_ACCOUNT_HEADER, type DestinationTarget } from "../../schema/node-api.ts";
import { newCallId, responseIn } from "../calls/dialog.ts";
import { OutboundLeg, type LegContext } from "../calls/outbound-leg.ts";
import type { CallSignalling } from "../calls/call-signalling.ts";
import type { SipRequest, SipResponse } from "../sip/message.ts";
import type { ServerTransaction } from "../sip/transactions.ts";
import type { Endpoint } from "../sip/transport.ts";
import { readAnswer, type Answer } from "./sdp-offer.ts";

/** What the agent's leg needs of its test call. */
export type AgentContext = LegContext & {
  signalling: Pick<CallSignalling, "respond">;
  resolve(host: string): Promise<string>;
};

/** What the agent's leg tells its test call. */
export type AgentEvents = {
  answered(answer: Answer): void;
  /** The agent was not reached: its final status (or 408 for silence, 502 for a host that does not resolve). */
  failed(status: number, reason: string): void;
  /** The agent hung up after answering. */
  hungUp(): void;
};

/** Header values carry no line breaks, and no more than a voice agent's instruction is allowed. */
const headerText = (text: string) => text.replace(/[\r\n\t]+/g, " ").slice(0, 2000);

export class AgentLeg {
  private readonly context: AgentContext;
  private readonly target: DestinationTarget;
  private readonly events: AgentEvents;
  private readonly headers: Array<[string, string]>;
  private readonly callerUser: string;
  private leg: OutboundLeg | null = null;
  private state: "resolving" | "calling" | "confirmed" | "ended" = "resolving";

  constructor(
    context: AgentContext,
    target: DestinationTarget,
    call: { testCallId: string; number: string; instruction?: string | undefined; accountAssertion?: string | undefined },
    events: AgentEvents,
  ) {
    this.context = context;
    this.target = target;
    this.events = events;
    this.callerUser = call.number.replace(/[^0-9+*#]/g, "") || "anonymous";
    this.headers = [["X-Call-Shield-Test-Call", call.testCallId]];
    if (call.accountAssertion) this.headers.push([PLACED_CALL_ACCOUNT_HEADER, call.accountAssertion]);
    if (call.instruction) this.headers.push(["X-Call-Shield-Instruction", headerText(call.instruction)]);
  }

  /** Dials the agent with `offer` (our SDP at the relay's side facing it). */
  async dial(offer: Uint8Array): Promise<void> {
    const target = this.target;
    const address = await this.context.resolve(target.host).catch(() => null);
    if (this.state === "ended") return;
    if (!address) return this.failed(502, "agent_unresolvable");
    const user = target.agent_id ?? `${target.tech_prefix ?? ""}${this.callerUser}`;
    const local = this.context.signalling.local;
    this.leg = new OutboundLeg(
      this.context,
      {
        callId: newCallId(local),
        localUri: `<sip:${this.callerUser}@${local.address}>`,
        remoteUri: `<sip:${user}@${target.host}>`,
        remoteTarget: `sip:${user}@${target.host}${target.port === 5060 ? "" : `:${target.port}`}`,
        endpoint: { address, port: target.port, protocol: target.transport, serverName: target.host },
        auth: target.auth,
      },
      {
        ringing: () => {},
        answered: (response) => this.answered(response),
        failed: (response) => (response ? this.failed(response.status, response.reason) : this.failed(408, "agent_timeout")),
        unanswered: () => {},
        request: (request, tx, from) => this.onInDialogRequest(request, tx, from),
      },
    );
    this.state = "calling";
    this.leg.call({ body: offer, contentType: "application/sdp", headers: this.headers });
  }

  private answered(response: SipResponse): void {
    const answer = readAnswer(response.body);
    if (!answer) {
      this.leg!.bye();
      return this.failed(488, "agent_no_common_codec");
    }
    this.state = "confirmed";
    this.events.answered(answer);
  }

  private onInDialogRequest(request: SipRequest, tx: ServerTransaction, from: Endpoint): void {
    const { signalling } = this.context;
    signalling.received(request, from);
    const respond = (status: number) => signalling.respond(tx, responseIn(this.leg!.dialog, request, status), from);
    if (request.method === "BYE") {
      respond(200);
      if (this.state === "confirmed") {
        this.state = "ended";
        this.events.hungUp();
      }
      return;
    }
    if (this.state !== "confirmed") return respond(481);
    respond(request.method === "INVITE" ? 488 : ["UPDATE", "INFO", "OPTIONS", "NOTIFY"].includes(request.method) ? 200 : 501);
  }

  /** Ends the leg from our side: CANCEL before the agent answered, BYE after. */
  hangUp(): void {
    if (this.state === "ended") return;
    this.leg?.hangUp();
    this.state = "ended";
  }

  private failed(status: number, reason: string): void {
    this.state = "ended";
    this.events.failed(status, reason);
  }
}
