/**
 * Many callers asking for the same thing at once share one run of the work.
 * A caller that stops waiting (its client hung up) only detaches itself: the
 * shared run goes on for the others, and its result is still stored for the
 * next request.
 */

export class SingleFlight<T> {
  readonly #flights = new Map<string, Promise<T>>();

  /**
   * Joins the run for `key`, or starts one with `start`. `start` may throw
   * synchronously (e.g. admission refused); then nothing is registered.
   * `signal` aborts this caller's wait only, never the shared run.
   */
  run(key: string, start: () => Promise<T>, signal?: AbortSignal): Promise<T> {
    let shared = this.#flights.get(key);
    if (shared === undefined) {
      const started = start();
      shared = started;
      this.#flights.set(key, started);
      const forget = (): void => {
        if (this.#flights.get(key) === started) this.#flights.delete(key);
      };
      // Handled here so a run whose waiters all left does not become an unhandled rejection.
      started.then(forget, forget);
    }
    return waitFor(shared, signal);
  }

  /** Runs in progress. */
  get size(): number {
    return this.#flights.size;
  }
}

function waitFor<T>(shared: Promise<T>, signal: AbortSignal | undefined): Promise<T> {
  if (signal === undefined) return shared;
  if (signal.aborted) return Promise.reject(signal.reason);
  return new Promise<T>((resolve, reject) => {
    const onAbort = (): void => reject(signal.reason);
    signal.addEventListener("abort", onAbort, { once: true });
    shared.then(
      (value) => {
        signal.removeEventListener("abort", onAbort);
        resolve(value);
      },
      (error: unknown) => {
        signal.removeEventListener("abort", onAbort);
        reject(error);
      },
    );
  });
}
