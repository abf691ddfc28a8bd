// The TrunkRegistry Durable Object: one global instance that serialises whitelist changes.
import { describeError } from "./errors.ts";
import type { ClaimInput, ClaimResult } from "../../durable-objects/trunk-registry.ts";
import type { Bindings } from "../env.ts";
import { serviceUnavailable } from "./errors.ts";

export const REGISTRY_NAME = "global";

/** How long a whitelist change waits for the registry before answering 503 Whitelist busy, retry. */
export const REGISTRY_TIMEOUT_MS = 5_000;

export const WHITELIST_BUSY = "Whitelist busy, retry";

/** What the whitelist service needs of the registry; tests may pass a stand-in. */
export type Registry = {
  claim(input: ClaimInput): Promise<ClaimResult>;
  release(entryId: string): Promise<{ version: number }>;
  touch(): Promise<{ version: number }>;
};

export const registryFor = (env: Bindings) => env.TRUNK_REGISTRY.get(env.TRUNK_REGISTRY.idFromName(REGISTRY_NAME));

/**
 * Waits for a registry call at most `timeoutMs`; a timeout or a failure of the call becomes
 * 503 Whitelist busy, retry. The call itself is not cancelled: callers undo what it may still do.
 */
export async function withinDeadline<T>(call: () => Promise<T>, timeoutMs: number): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(serviceUnavailable(WHITELIST_BUSY)), timeoutMs);
  });
  try {
    return await Promise.race([
      Promise.resolve()
        .then(call)
        .catch((err: unknown) => {
          console.error("trunk registry call failed", describeError(err));
          throw serviceUnavailable(WHITELIST_BUSY);
        }),
      deadline,
    ]);
  } finally {
    clearTimeout(timer);
  }
}
