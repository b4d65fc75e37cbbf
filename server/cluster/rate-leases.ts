/**
 * The primary's rate-limit count for all its workers (WORKERS > 1), handed
 * out in leases so that most requests are counted in the worker alone,
 * without a round trip to the primary.
 *
 * Each key's window (a clock minute, as in memory-rate-limiter.ts) has the
 * ordinals 1..limit; a request let through takes one, and its
 * `X-RateLimit-Remaining` is limit − ordinal. A worker asking for one gets
 * it, plus, while much of the window is free, a lease: a range of further
 * ordinals it takes from itself. A lease is at most a fraction of what is
 * free, and none is given near the limit, where every request asks. When
 * nothing is free but workers hold leases, the primary recalls them: each
 * holder gives back what it has not taken, and the questions waiting meanwhile
 * are answered from that. So exactly `limit` requests per key and window
 * pass, each ordinal once, however they spread over the workers. A holder
 * that does not answer a recall within `recallTimeoutMs`, or exits, keeps
 * its leases' ordinals as if taken: fewer may pass then, never more.
 */
import type { RateLimitDecision } from "../rate-limit/rate-limiter.js";
import { WINDOW_MS } from "../rate-limit/memory-rate-limiter.js";

/** A half-open range of ordinals [from, to). */
export type OrdinalRange = readonly [from: number, to: number];

/** One of the primary's workers, as the leases see it. */
export interface LeaseHolder {
  readonly id: number;
  /** Asks the worker to give back what it holds of `keyId`'s leases in `window` (`returned`). */
  recall(keyId: string, window: number): void;
}

export interface RateGrant {
  decision: RateLimitDecision;
  /** Further ordinals of the window the worker may take itself. */
  lease?: { window: number; ranges: OrdinalRange[] };
}

export interface RateLeasesOptions {
  /** Requests per key per window. */
  limit: number;
  /** A lease is at most this share of the ordinals free (default 1/8). */
  leaseShare?: number;
  /** Ordinals in one lease at most (default 64). */
  maxLease?: number;
  /** How long a recall waits for the holders' answers (default 1000 ms); what is not given back in time is lost for the window. */
  recallTimeoutMs?: number;
  /** Called when a recall ends without the answers of `holders` workers (their leases count as used). */
  onLateRecall?: (holders: number, timeoutMs: number) => void;
}

interface Waiting {
  holder: LeaseHolder;
  answer: (grant: RateGrant) => void;
}

interface KeyWindow {
  window: number;
  /** The next ordinal never handed out. */
  fresh: number;
  /** Ordinals given back from leases, handed out again before fresh ones. */
  returned: [number, number][];
  /** Workers that may hold ordinals of this window's leases. */
  holders: Set<LeaseHolder>;
  /** Holders asked to give theirs back, not yet answered. */
  recalling: Set<LeaseHolder>;
  /** Questions held until the recall ends. */
  waiting: Waiting[];
  timer?: NodeJS.Timeout;
}

export class RateLeases {
  readonly #limit: number;
  readonly #leaseShare: number;
  readonly #maxLease: number;
  readonly #recallTimeoutMs: number;
  readonly #onLateRecall: ((holders: number, timeoutMs: number) => void) | undefined;
  readonly #keys = new Map<string, KeyWindow>();
  #newestWindow = -Infinity;

  constructor(options: RateLeasesOptions) {
    if (!Number.isInteger(options.limit) || options.limit < 1) throw new TypeError(`Expected the "limit" option to be a positive integer`);
    this.#limit = options.limit;
    this.#leaseShare = options.leaseShare ?? 1 / 8;
    this.#maxLease = options.maxLease ?? 64;
    this.#recallTimeoutMs = options.recallTimeoutMs ?? 1000;
    this.#onLateRecall = options.onLateRecall;
  }

  /** Keys counted now (for tests of the sweep). */
  get size(): number {
    return this.#keys.size;
  }

  /** One request of `keyId` at `nowMs`: `answer` is called with the decision, at once or after a recall. */
  consume(holder: LeaseHolder, keyId: string, nowMs: number, answer: (grant: RateGrant) => void): void {
    const entry = this.#entry(keyId, Math.floor(nowMs / WINDOW_MS));
    if (entry.recalling.size > 0) {
      entry.waiting.push({ holder, answer });
      return;
    }
    this.#decide(keyId, entry, { holder, answer });
  }

  /** `holder` gives back the ordinals it had not taken of `keyId`'s leases in `window`, in answer to a recall. */
  returned(holder: LeaseHolder, keyId: string, window: number, ranges: readonly OrdinalRange[]): void {
    const entry = this.#keys.get(keyId);
    if (entry === undefined || entry.window !== window) return;
    for (const [from, to] of ranges) if (from < to) entry.returned.push([from, to]);
    if (entry.recalling.delete(holder) && entry.recalling.size === 0) this.#endRecall(keyId, entry);
  }

  /** `holder` exited: what it held counts as taken, and a recall no longer waits for it. */
  gone(holder: LeaseHolder): void {
    for (const [keyId, entry] of this.#keys) {
      entry.holders.delete(holder);
      if (entry.recalling.delete(holder) && entry.recalling.size === 0) this.#endRecall(keyId, entry);
    }
  }

  /** Clears the recall timers (the primary is stopping). */
  close(): void {
    for (const entry of this.#keys.values()) clearTimeout(entry.timer);
  }

  #entry(keyId: string, window: number): KeyWindow {
    if (window > this.#newestWindow) {
      this.#newestWindow = window;
      // Older windows are over; one still waiting on a recall finishes it first.
      for (const [key, entry] of this.#keys) if (entry.window < window && entry.recalling.size === 0) this.#keys.delete(key);
    }
    const old = this.#keys.get(keyId);
    // A question stamped just before the minute turned, arriving after one stamped after it, counts in the newer window.
    if (old !== undefined && old.window >= window) return old;
    const entry: KeyWindow = { window, fresh: 1, returned: [], holders: new Set(), recalling: new Set(), waiting: [] };
    this.#keys.set(keyId, entry);
    if (old !== undefined) {
      // Questions still waiting on the old window's recall are answered in this one.
      clearTimeout(old.timer);
      old.recalling.clear();
      for (const asked of old.waiting.splice(0)) this.#decide(keyId, entry, asked);
    }
    return entry;
  }

  #free(entry: KeyWindow): number {
    let free = this.#limit + 1 - entry.fresh;
    for (const [from, to] of entry.returned) free += to - from;
    return free;
  }

  /** Takes up to `count` ordinals, given-back ones first. */
  #take(entry: KeyWindow, count: number): [number, number][] {
    const taken: [number, number][] = [];
    while (count > 0 && entry.returned.length > 0) {
      const range = entry.returned[entry.returned.length - 1]!;
      const n = Math.min(count, range[1] - range[0]);
      taken.push([range[0], range[0] + n]);
      range[0] += n;
      count -= n;
      if (range[0] === range[1]) entry.returned.pop();
    }
    const n = Math.min(count, this.#limit + 1 - entry.fresh);
    if (n > 0) {
      taken.push([entry.fresh, entry.fresh + n]);
      entry.fresh += n;
    }
    return taken;
  }

  #decide(keyId: string, entry: KeyWindow, asked: Waiting): void {
    const resetAt = ((entry.window + 1) * WINDOW_MS) / 1000;
    const free = this.#free(entry);
    if (free > 0) {
      const ordinal = this.#take(entry, 1)[0]![0];
      const decision = { allowed: true, limit: this.#limit, remaining: this.#limit - ordinal, resetAt };
      const size = Math.min(this.#maxLease, Math.floor((free - 1) * this.#leaseShare));
      // A lease of one saves nothing: the worker would ask again for the next request anyway.
      if (size < 2) return asked.answer({ decision });
      entry.holders.add(asked.holder);
      return asked.answer({ decision, lease: { window: entry.window, ranges: this.#take(entry, size) } });
    }
    if (entry.holders.size === 0) return asked.answer({ decision: { allowed: false, limit: this.#limit, remaining: 0, resetAt } });
    // Nothing free here, but leases may hold some: ask for them back and answer once they are in.
    entry.waiting.push(asked);
    entry.recalling = new Set(entry.holders);
    entry.holders.clear();
    entry.timer = setTimeout(() => {
      this.#onLateRecall?.(entry.recalling.size, this.#recallTimeoutMs);
      entry.recalling.clear();
      this.#endRecall(keyId, entry);
    }, this.#recallTimeoutMs);
    entry.timer.unref();
    for (const holder of entry.recalling) holder.recall(keyId, entry.window);
  }

  #endRecall(keyId: string, entry: KeyWindow): void {
    clearTimeout(entry.timer);
    entry.timer = undefined;
    const waiting = entry.waiting;
    entry.waiting = [];
    for (let i = 0; i < waiting.length; i++) {
      // A new recall (leases given out of what came back) holds the rest again.
      if (entry.recalling.size > 0) {
        entry.waiting.push(...waiting.slice(i));
        return;
      }
      this.#decide(keyId, entry, waiting[i]!);
    }
  }
}
