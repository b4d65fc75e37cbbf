/**
 * Fixed-window limiter in process memory. The window is the current minute
 * since the epoch, so every key's window resets at :00. `consume` does its
 * read-modify-write without awaiting, so concurrent requests are counted
 * exactly. When the first request of a new window arrives, entries of older
 * windows are swept, so memory holds only keys seen in the current window.
 */
import type { RateLimitDecision, RateLimiter } from "./rate-limiter.js";

export const WINDOW_MS = 60_000;

export interface MemoryRateLimiterOptions {
  /** Requests per key per window. */
  limit: number;
}

export interface MemoryRateLimiter extends RateLimiter {
  /** Keys tracked right now (for tests of the sweep). */
  size(): number;
}

export function createMemoryRateLimiter(options: MemoryRateLimiterOptions): MemoryRateLimiter {
  if (!Number.isInteger(options.limit) || options.limit < 1) {
    throw new TypeError(`Expected the "limit" option to be a positive integer`);
  }
  const { limit } = options;
  const counts = new Map<string, { window: number; count: number }>();
  let newestWindow = -Infinity;

  const sweep = (window: number) => {
    for (const [keyId, entry] of counts) if (entry.window < window) counts.delete(keyId);
  };

  const decide = (keyId: string, nowMs: number): RateLimitDecision => {
    const window = Math.floor(nowMs / WINDOW_MS);
    if (window > newestWindow) {
      newestWindow = window;
      sweep(window);
    }
    const resetAt = ((window + 1) * WINDOW_MS) / 1000;
    let entry = counts.get(keyId);
    if (entry === undefined || entry.window !== window) {
      entry = { window, count: 0 };
      counts.set(keyId, entry);
    }
    if (entry.count >= limit) return { allowed: false, limit, remaining: 0, resetAt };
    entry.count++;
    return { allowed: true, limit, remaining: limit - entry.count, resetAt };
  };

  return {
    consume: decide,
    size: () => counts.size,
  };
}
