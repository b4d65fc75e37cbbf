/**
 * A shared limiter (Redis) with a local one behind it: while the shared one
 * is unusable (`usable()` false) or fails a request, the request is counted by
 * the local one (this process's memory, or the cluster primary's with
 * WORKERS > 1) in the same one-minute window. So an unreachable Redis never
 * refuses a request; the price is a looser limit meanwhile: each process
 * counts up to the limit on its own, on top of what Redis counted before.
 */
import type { RateLimitDecision, RateLimiter } from "./rate-limiter.js";

export interface FallbackRateLimiterOptions {
  shared: RateLimiter;
  local: RateLimiter;
  /** Whether to ask the shared limiter at all (the connection is up). */
  usable: () => boolean;
}

export function createFallbackRateLimiter({ shared, local, usable }: FallbackRateLimiterOptions): RateLimiter {
  return {
    async consume(keyId: string, nowMs: number): Promise<RateLimitDecision> {
      if (usable()) {
        try {
          return await shared.consume(keyId, nowMs);
        } catch {
          // A command that timed out on a connection still marked ready: this request is counted here.
        }
      }
      return local.consume(keyId, nowMs);
    },
  };
}
