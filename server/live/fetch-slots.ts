/**
 * The live fetcher's pool: `concurrency` slots and a bounded wait queue (a
 * p-queue), beyond which a fetch is refused with 503 `upstream_busy` at once.
 * A single request's fetch waits ahead of a bulk request's; a single request
 * joining a bulk's queued fetch brings it forward. A queued fetch whose
 * callers all left is withdrawn and takes no slot.
 */
import PQueue from "p-queue";
import type { TranscriptSourceResult } from "./transcript-source.js";
import type { FetchContext } from "./fetch-context.js";
import type { Run } from "./single-flight.js";
import { shuttingDownError, upstreamBusyError } from "./upstream-problem.js";

/** Queue priorities: a single request's fetch takes the next free slot before a bulk request's. */
export const SINGLE_PRIORITY = 1;
export const BULK_PRIORITY = 0;

/** A fetch in the pool: its queue id and priority, and whether it has left the queue for a slot. */
export interface Slot {
  readonly id: string;
  priority: number;
  started: boolean;
}

export interface FetchSlotsOptions {
  context: FetchContext;
  /** Upstream fetches running at once, over all requests. */
  concurrency: number;
  /** Fetches that may wait for a slot; one more is refused with 503 `upstream_busy`. */
  maxQueue: number;
}

export class FetchSlots {
  readonly #context: FetchContext;
  readonly #maxQueue: number;
  readonly #queue: PQueue;
  /** The pool entry of each flight, by flight key, until the flight settles. */
  readonly #slots = new Map<string, Slot>();
  #nextSlotId = 0;

  constructor(options: FetchSlotsOptions) {
    this.#context = options.context;
    this.#maxQueue = options.maxQueue;
    this.#queue = new PQueue({ concurrency: options.concurrency });
  }

  /** Fetches running and waiting. */
  get load(): { running: number; waiting: number } {
    return { running: this.#queue.pending, waiting: this.#queue.size };
  }

  /** The pool entry of the flight `key`, while it has one. */
  slotOf(key: string): Slot | undefined {
    return this.#slots.get(key);
  }

  /** Queues `work` for a slot under `key`, or refuses it (shutting down, or the wait queue full). */
  admit(key: string, priority: number, work: () => Promise<TranscriptSourceResult>): Run<TranscriptSourceResult> {
    const { stats, emit, log, closed, busyRetryAfter } = this.#context;
    const queue = this.#queue;
    if (closed.aborted) throw shuttingDownError();
    const slotsFree = queue.pending < queue.concurrency;
    if (!slotsFree && queue.size >= this.#maxQueue) {
      stats.refusedBusy++;
      emit({ outcome: "busy" });
      log?.warn("live fetch refused: queue full", { running: queue.pending, waiting: queue.size });
      throw upstreamBusyError("queue-full", busyRetryAfter);
    }
    const slot: Slot = { id: `live-${++this.#nextSlotId}`, priority, started: false };
    // Aborted only while queued: p-queue would also release the slot of a running task on abort.
    const withdraw = new AbortController();
    const promise = queue.add(
      () => {
        slot.started = true;
        return work();
      },
      { id: slot.id, priority, signal: withdraw.signal },
    );
    this.#slots.set(key, slot);
    const forget = (): void => {
      if (this.#slots.get(key) === slot) this.#slots.delete(key);
    };
    promise.then(forget, forget);
    return {
      promise,
      cancel() {
        if (slot.started) return false;
        withdraw.abort(new Error("every caller of this fetch stopped waiting"));
        stats.withdrawn++;
        emit({ outcome: "withdrawn" });
        forget();
        return true;
      },
    };
  }

  /** A single request joining a bulk's queued fetch brings it forward, so it waits as its own would. */
  bringForward(slot: Slot, priority: number): void {
    if (slot.started || slot.priority >= priority) return;
    this.#queue.setPriority(slot.id, priority);
    slot.priority = priority;
  }

  /** Resolves once every admitted fetch has settled. */
  onIdle(): Promise<void> {
    return this.#queue.onIdle();
  }
}
