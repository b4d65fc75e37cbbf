/**
 * Parallel reads of the transcript texts a search is about to read one by
 * one: the candidates it scores by counting terms in their text, the ones
 * it confirms a phrase in, and the page it cuts snippets from.
 *
 * Those that are not held in memory (hot-transcripts.ts) are read from the
 * database, and where the operating system's cache no longer holds them,
 * from disk: one reader waiting on each text in turn. Here a few worker
 * threads, each with its own read-only connection, read them at once, which
 * keeps several requests in flight; the search waits for them (bounded by a
 * deadline) and then reads the rows itself, from the operating system's
 * cache. What the workers read is a hint and nothing else: if they are
 * slow, fail or are gone, the search reads everything itself, with the
 * same results.
 *
 * The search is synchronous (better-sqlite3), so the wait is too: the
 * thread blocks on a shared counter (Atomics.wait), as it would on its own
 * reads, for less time.
 */
import type { Worker } from "node:worker_threads";
import { tsWorker } from "../../../pipeline/artifact/worker-thread/index.js";

/** `items` dealt round robin into `parts` lists (at least one). */
function roundRobin<T>(items: readonly T[], parts: number): T[][] {
  const shares = Array.from({ length: Math.max(1, parts) }, (): T[] => []);
  items.forEach((item, i) => shares[i % shares.length]!.push(item));
  return shares;
}

/** Below this many texts to read, the hand-off to the workers costs more than it saves. */
export const MIN_PREFETCH = 4;

/** Longest a search waits for the workers before it reads what is left itself. */
const DEADLINE_MS = 100;

/** Counters shared with the workers (text-prefetch-worker.ts): batches done, rows read. */
export const PREFETCH_DONE = 0;
export const PREFETCH_ROWS = 1;
const DONE = PREFETCH_DONE;
const ROWS = PREFETCH_ROWS;

/** A list of video ids for one read-ahead thread; `timings`: their segment timings too (for the page's snippets and moments). */
export interface TextPrefetchBatch {
  ids: number[];
  timings: boolean;
}

/** What a read-ahead thread (text-prefetch-worker.ts) is given: the database file and the shared counters. */
export interface TextPrefetchWorkerData {
  path: string;
  counters: SharedArrayBuffer;
}

export class TextPrefetch {
  readonly #workers: Worker[];
  readonly #counters = new Int32Array(new SharedArrayBuffer(8));
  /** Batches handed to the workers so far; each worker works through its own in order. */
  #posted = 0;
  #closed = false;
  #started = 0;
  readonly #ready: Promise<void>;

  /** Starts `threads` workers reading `file` (an artifact database). */
  constructor(file: string, threads: number) {
    let started: () => void;
    this.#ready = new Promise((resolve) => (started = resolve));
    this.#workers = Array.from({ length: Math.max(1, threads) }, () => {
      const data: TextPrefetchWorkerData = { path: file, counters: this.#counters.buffer as SharedArrayBuffer };
      const worker = tsWorker(new URL("./text-prefetch-worker.ts", import.meta.url), data);
      worker.unref();
      worker.once("message", () => {
        if (++this.#started === this.#workers.length) started();
      });
      // A worker that dies takes its batches with it, and every later wait would run to the deadline: stop using them all.
      worker.on("error", () => this.close());
      worker.on("exit", () => {
        this.close();
        started();
      });
      return worker;
    });
  }

  /** Resolves once every worker has started (or the prefetch has closed); until then `read` reads nothing. */
  ready(): Promise<void> {
    return this.#ready;
  }

  /**
   * Has the workers read the texts of `ids` (video ids of the artifact set),
   * with their timings when `timings`, and waits until they have, at most DEADLINE_MS. Returns the rows they read
   * in that time (0 when too few ids to be worth it, before `ready()` or
   * after `close()`).
   */
  read(ids: readonly number[], timings = false): number {
    if (this.#closed || this.#started < this.#workers.length || ids.length < MIN_PREFETCH) return 0;
    const rowsBefore = Atomics.load(this.#counters, ROWS);
    roundRobin(ids, this.#workers.length).forEach((share, i) => {
      if (share.length === 0) return;
      const batch: TextPrefetchBatch = { ids: share, timings };
      this.#workers[i]!.postMessage(batch);
      this.#posted++;
    });
    const deadline = performance.now() + DEADLINE_MS;
    for (;;) {
      const done = Atomics.load(this.#counters, DONE);
      const left = deadline - performance.now();
      if (done >= this.#posted || left <= 0) break;
      Atomics.wait(this.#counters, DONE, done, left);
    }
    return Atomics.load(this.#counters, ROWS) - rowsBefore;
  }

  close(): void {
    if (this.#closed) return;
    this.#closed = true;
    for (const worker of this.#workers) void worker.terminate();
  }
}
