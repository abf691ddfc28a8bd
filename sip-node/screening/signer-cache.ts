// What a PASSporT's x5u led to, kept per URL so that a call from a known signer costs no request:
// the signer's public key and its chain's verdict, until the first certificate of the chain
// expires (or the x5u's Cache-Control max-age, when sooner); a failure (refused, unreachable,
// untrusted) for a minute, so a flood naming a dead or hostile x5u costs one fetch a minute.
// Bounded: past MAX_ENTRIES the least recently used go. Calls arriving while a URL is fetched
// wait for that one fetch.
import type { KeyObject } from "node:crypto";
import type { ChainProblem } from "./certificate-chain.ts";
import type { X5uFailure } from "./x5u-fetch.ts";

export type Signer = { key: KeyObject } | { failure: X5uFailure["reason"] | ChainProblem };
export type Loaded = { signer: Signer; expiresAt: number };

const MAX_ENTRIES = 1_000;
export const FAILURE_TTL_MS = 60_000;

type Slot = { expiresAt: number; signer: Promise<Signer> };

export class SignerCache {
  private readonly slots = new Map<string, Slot>();
  private readonly max: number;
  private readonly now: () => number;

  constructor(now: () => number = Date.now, max = MAX_ENTRIES) {
    this.now = now;
    this.max = max;
  }

  get size(): number {
    return this.slots.size;
  }

  /** The signer `x5u` names: cached, or loaded by `load`. */
  get(x5u: string, load: () => Promise<Loaded>): Promise<Signer> {
    const slot = this.slots.get(x5u);
    if (slot && slot.expiresAt > this.now()) {
      this.slots.delete(x5u);
      this.slots.set(x5u, slot);
      return slot.signer;
    }
    const loading: Slot = { expiresAt: Number.POSITIVE_INFINITY, signer: Promise.resolve({ failure: "x5u_unreachable" }) };
    const failed = (): Loaded => ({ signer: { failure: "x5u_unreachable" }, expiresAt: this.now() + FAILURE_TTL_MS });
    loading.signer = load()
      .catch(failed)
      .then(({ signer, expiresAt }) => {
        if (this.slots.get(x5u) === loading) {
          if (expiresAt > this.now()) loading.expiresAt = expiresAt;
          else this.slots.delete(x5u);
        }
        return signer;
      });
    this.slots.delete(x5u);
    this.slots.set(x5u, loading);
    while (this.slots.size > this.max) this.slots.delete(this.slots.keys().next().value!);
    return loading.signer;
  }
}
