/**
 * What the primary holds for all its workers: the rate-limit windows, the
 * claims on live fetches and the negative cache, each in its memory alone,
 * so every worker sees one count per key, one fetch per missing (video,
 * language) and one set of remembered failures. A worker that exits
 * abandons its claims: the workers waiting on them claim again.
 */
import { NegativeCache } from "../live/negative-cache.js";
import { shareYouTubeError, youTubeErrorFrom, type FetchOutcome } from "../coordination/fetch-coordination.js";
import { createMemoryRateLimiter } from "../rate-limit/memory-rate-limiter.js";
import type { Answer, Ask } from "./messages.js";

/** Who asked: answers go back through `reply`. */
export interface Asker {
  readonly id: number;
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
}

export class Hub {
  readonly #limiter;
  readonly #negative: NegativeCache;
  readonly #claims = new Map<string, ClaimEntry>();

  constructor(options: HubOptions) {
    this.#limiter = createMemoryRateLimiter({ limit: options.rateLimitPerMinute });
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
        asker.reply(id, { op: "rate", decision: await this.#limiter.consume(ask.keyId, ask.nowMs) });
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

  /** A worker exited: its claims are abandoned (their waiters claim again) and its waits forgotten. */
  gone(asker: Asker): void {
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
