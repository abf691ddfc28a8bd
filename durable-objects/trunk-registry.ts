// TrunkRegistry: one global instance that serialises whitelist changes, so the
// cross-account CIDR overlap check is atomic, and numbers whitelist versions for SIP nodes.
// Only the version counter exists so far; ownership claims arrive with the control plane.
import { DurableObject } from "cloudflare:workers";

export class TrunkRegistry extends DurableObject {
  async version(): Promise<number> {
    return (await this.ctx.storage.get<number>("version")) ?? 0;
  }
}
