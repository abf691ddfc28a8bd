// Waiting in tests: on a condition with a deadline (until), or, only where a test means time to
// pass (a call that talks a while, a window in which nothing may happen), a fixed pause. A fixed
// wait for something to have happened is what a loaded machine outlasts.

/**
 * Lets time pass. Only for time a test means to let pass (a call that talks for a while, a window
 * in which nothing may happen): to wait for something to have happened, poll it with `until`.
 */
export const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Polls `check` every `everyMs` until it answers something truthy, which it returns; throws past
 * `timeoutMs` of real time (performance.now: a test may fake Date).
 */
export async function until<T>(
  what: string,
  check: () => T | null | undefined | false | Promise<T | null | undefined | false>,
  timeoutMs = 10_000,
  everyMs = 10,
): Promise<T> {
  const deadline = performance.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value) return value;
    if (performance.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await pause(everyMs);
  }
}
