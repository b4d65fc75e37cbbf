/**
 * Many callers asking for the same thing at once share one run of the work.
 * A caller that stops waiting (its client hung up, or its deadline passed)
 * only detaches itself: the shared run goes on for the others, and its
 * result is still stored for the next request. When the last caller leaves,
 * the run is offered the chance to be called off (a fetch still waiting for
 * a slot is; one already running is not).
 */

export interface Run<T> {
  readonly promise: Promise<T>;
  /**
   * Called when every caller has stopped waiting. Returns true when the run
   * was called off: it is then forgotten at once, so the next caller starts
   * a new one instead of joining a run that will never answer.
   */
  cancel?(): boolean;
}

interface Flight<T> {
  run: Run<T>;
  /** Callers still waiting. */
  waiting: number;
  /** A caller without a signal waits until the end, so the run is never called off. */
  pinned: boolean;
}

export class SingleFlight<T> {
  readonly #flights = new Map<string, Flight<T>>();

  /**
   * Joins the run for `key`, or starts one with `start`. `start` may throw
   * synchronously (e.g. admission refused); then nothing is registered.
   * `signal` aborts this caller's wait only, never the shared run.
   */
  run(key: string, start: () => Run<T>, signal?: AbortSignal): Promise<T> {
    // A caller that has already stopped waiting starts nothing and joins nothing.
    if (signal?.aborted === true) return Promise.reject(signal.reason);
    let flight = this.#flights.get(key);
    if (flight === undefined) {
      const run = start();
      const created: Flight<T> = { run, waiting: 0, pinned: false };
      flight = created;
      this.#flights.set(key, created);
      const forget = (): void => {
        if (this.#flights.get(key) === created) this.#flights.delete(key);
      };
      // Handled here so a run whose waiters all left does not become an unhandled rejection.
      run.promise.then(forget, forget);
    }
    if (signal === undefined) {
      flight.pinned = true;
      return flight.run.promise;
    }
    return this.#waitFor(key, flight, signal);
  }

  /** Runs in progress. */
  get size(): number {
    return this.#flights.size;
  }

  #waitFor(key: string, flight: Flight<T>, signal: AbortSignal): Promise<T> {
    flight.waiting++;
    return new Promise<T>((resolve, reject) => {
      const onAbort = (): void => {
        reject(signal.reason);
        flight.waiting--;
        if (flight.waiting === 0 && !flight.pinned && flight.run.cancel?.() === true && this.#flights.get(key) === flight) {
          this.#flights.delete(key);
        }
      };
      signal.addEventListener("abort", onAbort, { once: true });
      flight.run.promise.then(
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
}
