/**
 * A shared limiter (Redis) with a local one behind it: while the shared one
 * is unusable (`usable()` false) or fails a request, the request is counted by
 * the local one (this process's memory, or the cluster primary's with
 * WORKERS > 1) in the same one-minute window. So an unreachable or stalled
 * Redis never refuses a request; the price is a looser limit meanwhile: each
 * process counts up to the limit on its own, on top of what Redis counted
 * before. A failure is reported (`failed`), so one missed deadline stops the
 * next requests from asking the shared limiter at all.
 */
import type { RateLimitDecision, RateLimiter } from "./rate-limiter.js";

export interface FallbackRateLimiterOptions {
  shared: RateLimiter;
  local: RateLimiter;
  /** Whether to ask the shared limiter at all (the connection is up). */
  usable: () => boolean;
  /** Told of each failed call of the shared limiter. */
  failed?: (error: unknown) => void;
}

export function createFallbackRateLimiter({ shared, local, usable, failed }: FallbackRateLimiterOptions): RateLimiter {
  const sharedOrLocal = async (keyId: string, nowMs: number): Promise<RateLimitDecision> => {
    try {
      return await shared.consume(keyId, nowMs);
    } catch (error) {
      // Redis failed this call (a missed deadline, or the connection dropped meanwhile): counted here.
      failed?.(error);
    }
    return local.consume(keyId, nowMs);
  };
  return {
    consume(keyId: string, nowMs: number): RateLimitDecision | Promise<RateLimitDecision> {
      return usable() ? sharedOrLocal(keyId, nowMs) : local.consume(keyId, nowMs);
    },
  };
}
