/**
 * What the primary holds for all its workers: the rate-limit windows (leased
 * to the workers a range at a time, rate-leases.ts), the claims on live
 * fetches and the negative cache, each in its memory alone, so every worker
 * sees one count per key, one fetch per missing (video, language) and one
 * set of remembered failures. A worker that exits abandons its claims: the
 * workers waiting on them claim again.
 */
import { NegativeCache } from "../live/negative-cache.js";
import { shareYouTubeError, youTubeErrorFrom, type FetchOutcome } from "../live/fetch-coordination.js";
import type { Answer, Ask } from "./messages.js";
import { RateLeases, type LeaseHolder, type OrdinalRange } from "./rate-leases.js";

/** Who asked: answers go back through `reply`, recalls of its rate leases through `recall`. */
export interface Asker extends LeaseHolder {
  reply(id: number, answer: Answer): void;
}

interface ClaimEntry {
  owner: Asker;
  waiters: { asker: Asker; id: number }[];
}

export interface HubOptions {
  rateLimitPerMinute: number;
  negativeCacheMs: number;
  negativeCacheSize: number;
  clock?: () => number;
  /** A rate-lease recall ended without some workers' answers (rate-leases.ts). */
  onLateRecall?: (holders: number, timeoutMs: number) => void;
}

export class Hub {
  readonly #leases: RateLeases;
  readonly #negative: NegativeCache;
  readonly #claims = new Map<string, ClaimEntry>();

  constructor(options: HubOptions) {
    this.#leases = new RateLeases({ limit: options.rateLimitPerMinute, ...(options.onLateRecall ? { onLateRecall: options.onLateRecall } : {}) });
    this.#negative = new NegativeCache({
      ttlMs: options.negativeCacheMs,
      maxEntries: options.negativeCacheSize,
      ...(options.clock ? { now: options.clock } : {}),
    });
  }

  /** Claims in flight (for tests). */
  get claims(): number {
    return this.#claims.size;
  }

  async handle(asker: Asker, id: number, ask: Ask): Promise<void> {
    switch (ask.op) {
      case "rate":
        this.#leases.consume(asker, ask.keyId, ask.nowMs, (grant) => asker.reply(id, { op: "rate", ...grant }));
        return;
      case "claim": {
        const entry = this.#claims.get(ask.key);
        if (entry === undefined) {
          this.#claims.set(ask.key, { owner: asker, waiters: [] });
          asker.reply(id, { op: "claim", role: "leader" });
        } else {
          entry.waiters.push({ asker, id });
          asker.reply(id, { op: "claim", role: "follower" });
        }
        return;
      }
      case "settle": {
        const entry = this.#claims.get(ask.key);
        if (entry !== undefined && entry.owner === asker) this.#settle(ask.key, entry, ask.outcome);
        asker.reply(id, { op: "settle" });
        return;
      }
      case "negative-get": {
        const error = this.#negative.get(ask.videoId, ask.lang);
        asker.reply(id, { op: "negative-get", error: error ? shareYouTubeError(error) : null });
        return;
      }
      case "negative-remember":
        asker.reply(id, { op: "negative-remember", remembered: this.#negative.remember(ask.videoId, ask.lang, youTubeErrorFrom(ask.error)) });
        return;
    }
  }

  /** What `asker` had not taken of a recalled rate lease. */
  returned(asker: Asker, keyId: string, window: number, ranges: readonly OrdinalRange[]): void {
    this.#leases.returned(asker, keyId, window, ranges);
  }

  /** A worker exited: its claims are abandoned (their waiters claim again), its waits forgotten, its rate leases counted as taken. */
  gone(asker: Asker): void {
    this.#leases.gone(asker);
    for (const [key, entry] of this.#claims) {
      entry.waiters = entry.waiters.filter((waiter) => waiter.asker !== asker);
      if (entry.owner === asker) this.#settle(key, entry, { kind: "abandoned" });
    }
  }

  #settle(key: string, entry: ClaimEntry, outcome: FetchOutcome): void {
    this.#claims.delete(key);
    for (const waiter of entry.waiters) waiter.asker.reply(waiter.id, { op: "outcome", outcome });
  }
}
