// The test calls this node places: the Worker's `originate` command starts one (answered at once,
// the call goes on by itself), `cancel_test_call` withdraws it. They live in the node's call
// registry with the B2BUA's calls, which routes their dialogs to them and through which the node's
// hang-up, credit grants, heartbeat, inspector stats and drain reach them.
import { lookup } from "node:dns/promises";
import { isIP } from "node:net";
import type { OriginateCommand } from "../../schema/node-api.ts";
import type { CallRegistry } from "../calls/registry.ts";
import { ProgressPoster } from "./progress.ts";
import { TestCall, type OriginationHost } from "./test-call.ts";

export type OriginatorOptions = Omit<OriginationHost, "progress" | "resolve" | "worker" | "calls"> & {
  worker: OriginationHost["worker"] & ConstructorParameters<typeof ProgressPoster>[0];
  calls: Pick<CallRegistry, "add" | "all"> & OriginationHost["calls"];
};

export class Originator {
  private readonly host: OriginationHost;
  private readonly calls: OriginatorOptions["calls"];
  private draining = false;

  constructor(options: OriginatorOptions) {
    this.calls = options.calls;
    this.host = {
      ...options,
      progress: new ProgressPoster(options.worker, options.nodeId, options.log),
      resolve: (host) => (isIP(host) ? Promise.resolve(host) : lookup(host).then((r) => r.address)),
    };
  }

  /** Starts a test call (the same test call asked again is the one under way); refused while the node drains. */
  originate(command: OriginateCommand): { accepted: true; test_call_id: string } {
    if (this.draining) throw new Error("this node is draining: it places no new test calls");
    if (!this.underWay(command.test_call_id)) {
      const call = new TestCall(this.host, command);
      this.calls.add(call);
      void call.start().catch((err: unknown) => {
        call.log.error(String(err));
        call.hangUp("internal_error");
      });
    }
    return { accepted: true, test_call_id: command.test_call_id };
  }

  /** Withdraws a test call: CANCEL before the answer, BYE after; false when this node has no such call up. */
  cancel(testCallId: string): boolean {
    return this.underWay(testCallId)?.cancel() ?? false;
  }

  /** Test calls up now. */
  get activeCalls(): number {
    return this.calls.all(TestCall).length;
  }

  stopTakingCalls(): void {
    this.draining = true;
  }

  private underWay(testCallId: string): TestCall | undefined {
    return this.calls.all(TestCall).find((call) => call.testCallId === testCallId);
  }
}
