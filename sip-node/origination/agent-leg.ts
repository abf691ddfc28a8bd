// Voice-agent mode of a test call: once the number answers, a second dialog of ours to the
// account's voice-AI destination (the ticket's agent_destination), offered the law the number
// chose at the relay's caller side, so the relay bridges the two as the B2BUA bridges a call (and
// records the agent on the left, the number on the right). The agent is told which test call it
// is in and what it is asked to do (X-Call-Shield-Test-Call, X-Call-Shield-Instruction); its
// digest challenge is answered once, like any destination's.
import { PLACED_CALL_ACCOUNT_HEADER, type DestinationTarget } from "../../schema/node-api.ts";
import type { OriginatedDialog } from "../b2bua/b2bua.ts";
import { reasonPhrase } from "../b2bua/causes.ts";
import { digestAuthorization, parseChallenge } from "../sip/digest-client.ts";
import { header } from "../sip/headers.ts";
import type { SipMessage, SipRequest, SipResponse } from "../sip/message.ts";
import { parseCSeq, parseNameAddr } from "../sip/parser.ts";
import { responseTo, type ServerTransaction } from "../sip/transactions.ts";
import type { Endpoint } from "../sip/transport.ts";
import { readAnswer, type Answer } from "./sdp-offer.ts";
import type { OriginationHost } from "./test-call.ts";
import { newTag, requestOn, type UacDialog } from "./uac-dialog.ts";
import { cancelOf } from "../sip/cancel.ts";

/** What the agent leg needs of its test call. */
export type AgentLegOwner = {
  host: Pick<OriginationHost, "local" | "layer" | "resolve" | "register" | "unregisterDialog">;
  send(request: SipRequest, to: Endpoint, onResponse: (response: SipResponse | null) => void): void;
  record(direction: "in" | "out", message: SipMessage, peer: Endpoint): void;
  onWire(direction: "in" | "out", message: SipMessage, bytes: Uint8Array | null, peer: Endpoint): void;
  agentAnswered(answer: Answer): void;
  /** The agent never answered: its final status (or 408 for silence, 502 for a host that does not resolve). */
  agentFailed(status: number, reason: string): void;
  /** The agent hung up after answering. */
  agentHungUp(): void;
};

/** Header values carry no line breaks, and no more than a voice agent's instruction is allowed. */
const headerText = (text: string) => text.replace(/[\r\n\t]+/g, " ").slice(0, 2000);

export class AgentLeg {
  private readonly owner: AgentLegOwner;
  private readonly target: DestinationTarget;
  private readonly headers: Array<[string, string]>;
  private readonly callerUser: string;
  private dialog: UacDialog | null = null;
  private invite: SipRequest | null = null;
  private offer: Uint8Array = new Uint8Array(0);
  private lastAck: SipRequest | null = null;
  private authTried = false;
  state: "resolving" | "calling" | "confirmed" | "ended" = "resolving";

  constructor(
    owner: AgentLegOwner,
    target: DestinationTarget,
    call: { testCallId: string; number: string; instruction?: string | undefined; accountAssertion?: string | undefined },
  ) {
    this.owner = owner;
    this.target = target;
    this.callerUser = call.number.replace(/[^0-9+*#]/g, "") || "anonymous";
    this.headers = [["X-Call-Shield-Test-Call", call.testCallId]];
    if (call.accountAssertion) this.headers.push([PLACED_CALL_ACCOUNT_HEADER, call.accountAssertion]);
    if (call.instruction) this.headers.push(["X-Call-Shield-Instruction", headerText(call.instruction)]);
  }

  /** The Call-ID of the agent's dialog, once dialled. */
  get callId(): string | null {
    return this.dialog?.callId ?? null;
  }

  /** Dials the agent with `offer` (our SDP at the relay's side facing it). */
  async dial(offer: Uint8Array): Promise<void> {
    const { host } = this.owner;
    const target = this.target;
    const address = await host.resolve(target.host).catch(() => null);
    if (this.state === "ended") return;
    if (!address) return this.failed(502, "agent_unresolvable");
    const user = target.agent_id ?? `${target.tech_prefix ?? ""}${this.callerUser}`;
    const port = target.port === 5060 ? "" : `:${target.port}`;
    this.dialog = {
      callId: `${newTag()}${newTag()}@${host.local.address}`,
      localTag: newTag(),
      remoteTag: null,
      localUri: `<sip:${this.callerUser}@${host.local.address}>`,
      remoteUri: `<sip:${user}@${target.host}>`,
      remoteTarget: `sip:${user}@${target.host}${port}`,
      endpoint: { address, port: target.port, protocol: target.transport, serverName: target.host },
      localSeq: 0,
    };
    host.register(this.dialog.callId, this.routed());
    this.state = "calling";
    this.offer = offer;
    this.sendInvite();
  }

  private routed(): OriginatedDialog {
    return {
      localTag: this.dialog!.localTag,
      onInDialogRequest: (request, tx, from) => this.onInDialogRequest(request, tx, from),
      onRetransmitted2xx: () => {
        if (this.lastAck) this.owner.host.layer.sendStateless(this.lastAck, this.dialog!.endpoint);
      },
      onWire: (direction, message, bytes, peer) => this.owner.onWire(direction, message, bytes, peer),
    };
  }

  private sendInvite(authorization?: [string, string]): void {
    const dialog = this.dialog!;
    const request = requestOn(dialog, this.owner.host.local, "INVITE", this.offer);
    request.headers.push(...this.headers);
    if (authorization) request.headers.push(authorization);
    this.invite = request;
    this.owner.send(request, dialog.endpoint, (response) => this.onInviteResponse(request, response));
  }

  private onInviteResponse(request: SipRequest, response: SipResponse | null): void {
    const dialog = this.dialog!;
    if (response) this.owner.record("in", response, dialog.endpoint);
    if (this.state === "ended") {
      // An answer that crossed our CANCEL: ACK it and hang up.
      if (response && response.status >= 200 && response.status < 300) {
        this.acknowledge(request, response);
        this.bye();
      }
      return;
    }
    if (request !== this.invite) return;
    if (!response) return this.failed(408, "agent_timeout");
    const status = response.status;
    if (status < 200) {
      dialog.remoteTag ??= parseNameAddr(header(response, "To") ?? "").tag;
      return;
    }
    if (status < 300) {
      const contact = header(response, "Contact");
      if (contact) dialog.remoteTarget = parseNameAddr(contact).uri;
      this.acknowledge(request, response);
      const answer = readAnswer(response.body);
      if (!answer) {
        this.bye();
        return this.failed(488, "agent_no_common_codec");
      }
      this.state = "confirmed";
      return this.owner.agentAnswered(answer);
    }
    const auth = this.target.auth;
    if ((status === 401 || status === 407) && !this.authTried && auth) {
      this.authTried = true;
      const challenge = parseChallenge(header(response, status === 401 ? "WWW-Authenticate" : "Proxy-Authenticate") ?? "");
      const value = challenge && digestAuthorization(challenge, auth, "INVITE", dialog.remoteTarget);
      if (value) return this.sendInvite([status === 401 ? "Authorization" : "Proxy-Authorization", value]);
    }
    this.failed(status, response.reason);
  }

  private acknowledge(request: SipRequest, response: SipResponse): void {
    const dialog = this.dialog!;
    dialog.remoteTag = parseNameAddr(header(response, "To") ?? "").tag ?? dialog.remoteTag;
    const ack = requestOn(dialog, this.owner.host.local, "ACK", undefined, parseCSeq(header(request, "CSeq")!).seq);
    this.lastAck = ack;
    this.owner.host.layer.sendStateless(ack, dialog.endpoint);
    this.owner.record("out", ack, dialog.endpoint);
  }

  private onInDialogRequest(request: SipRequest, tx: ServerTransaction, from: Endpoint): void {
    this.owner.record("in", request, from);
    const respond = (status: number) => {
      const response = responseTo(request, status, reasonPhrase(status), this.dialog!.localTag);
      tx.respond(response);
      this.owner.record("out", response, from);
    };
    if (request.method === "BYE") {
      respond(200);
      if (this.state === "confirmed") {
        this.finish();
        this.owner.agentHungUp();
      }
      return;
    }
    if (this.state !== "confirmed") return respond(481);
    respond(request.method === "INVITE" ? 488 : ["UPDATE", "INFO", "OPTIONS", "NOTIFY"].includes(request.method) ? 200 : 501);
  }

  /** Ends the leg from our side: CANCEL before the agent answered, BYE after. */
  hangUp(): void {
    if (this.state === "calling" && this.invite) this.owner.send(cancelOf(this.invite), this.dialog!.endpoint, () => {});
    else if (this.state === "confirmed") this.bye();
    this.finish();
  }

  private bye(): void {
    const dialog = this.dialog;
    if (!dialog?.remoteTag) return;
    this.owner.send(requestOn(dialog, this.owner.host.local, "BYE"), dialog.endpoint, (response) => {
      if (response) this.owner.record("in", response, dialog.endpoint);
    });
  }

  private failed(status: number, reason: string): void {
    this.finish();
    this.owner.agentFailed(status, reason);
  }

  private finish(): void {
    if (this.state === "ended") return;
    this.state = "ended";
    if (this.dialog) this.owner.host.unregisterDialog(this.dialog.callId);
  }
}
