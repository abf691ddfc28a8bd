// The timers of one call and the work its end leaves running. A call's end clears every timer
// still pending; a draining node waits for the work (reports, uploads) with a bound.

type Timer = ReturnType<typeof setTimeout>;

export class CallTimers {
  private readonly pending = new Set<Timer>();

  after(ms: number, fn: () => void): Timer {
    const timer = setTimeout(() => {
      this.pending.delete(timer);
      fn();
    }, ms);
    this.pending.add(timer);
    return timer;
  }

  clear(timer: Timer | null): void {
    if (!timer) return;
    clearTimeout(timer);
    this.pending.delete(timer);
  }

  clearAll(): void {
    for (const timer of this.pending) clearTimeout(timer);
    this.pending.clear();
  }
}

/** Promises still running after the calls that started them ended. */
export class PendingWork {
  private readonly running = new Set<Promise<unknown>>();

  track(work: Promise<unknown>): void {
    this.running.add(work);
    void work.finally(() => this.running.delete(work)).catch(() => {});
  }

  /** Resolves when every tracked promise has settled, or after `timeoutMs`. */
  async settled(timeoutMs: number): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    while (this.running.size > 0 && Date.now() < deadline) {
      let timer: Timer | undefined;
      await Promise.race([
        Promise.allSettled([...this.running]),
        new Promise((resolve) => (timer = setTimeout(resolve, deadline - Date.now()))),
      ]);
      clearTimeout(timer);
    }
  }
}
