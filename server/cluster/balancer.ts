/**
 * Which worker gets the next connection (WORKERS > 1): the one holding the
 * fewest open connections, ties taken in turn. Clients that keep their
 * connections alive send every request of a connection to the worker that
 * got it, and node:cluster's own dealing (round robin as each worker takes
 * its last one) often leaves them uneven: eight connections opened at once
 * split 2 and 6 as often as 4 and 4, and the worker with six then answers
 * each of its requests after five others while the other waits for work.
 */
export class LeastConnections<W> {
  /** Open connections by worker, in the order the workers came. */
  readonly #open = new Map<W, number>();
  /** The worker given the last connection: the next tie goes to one after it. */
  #last: W | undefined;

  /** A worker that takes connections from now on, with none open. */
  add(worker: W): void {
    if (!this.#open.has(worker)) this.#open.set(worker, 0);
  }

  /** A worker that takes no more (stopping or gone); its connections no longer count. */
  remove(worker: W): void {
    this.#open.delete(worker);
    if (this.#last === worker) this.#last = undefined;
  }

  /** The worker for a new connection, counted as open there; undefined when no worker takes any. */
  pick(): W | undefined {
    let best: W | undefined;
    let fewest = Number.POSITIVE_INFINITY;
    // From the one after the last given, so equal counts are dealt in turn.
    const workers = [...this.#open.keys()];
    const start = this.#last === undefined ? 0 : workers.indexOf(this.#last) + 1;
    for (let i = 0; i < workers.length; i++) {
      const worker = workers[(start + i) % workers.length]!;
      const open = this.#open.get(worker)!;
      if (open < fewest) {
        fewest = open;
        best = worker;
      }
    }
    if (best !== undefined) {
      this.#open.set(best, fewest + 1);
      this.#last = best;
    }
    return best;
  }

  /** `count` of the worker's connections have closed. */
  closed(worker: W, count = 1): void {
    const open = this.#open.get(worker);
    if (open !== undefined) this.#open.set(worker, Math.max(0, open - count));
  }

  /** Open connections of a worker (0 for one not taking any). */
  openOf(worker: W): number {
    return this.#open.get(worker) ?? 0;
  }
}
