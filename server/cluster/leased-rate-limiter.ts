/**
 * A worker's rate limiter with WORKERS > 1: requests are counted from the
 * leases the primary gave this worker while they last, and asked of the
 * primary otherwise (rate-leases.ts). A lease is given back whole when the
 * primary recalls it.
 */
import { WINDOW_MS } from "../rate-limit/memory-rate-limiter.js";
import type { RateLimitDecision, RateLimiter } from "../rate-limit/rate-limiter.js";
import type { OrdinalRange, RateGrant } from "./rate-leases.js";

interface Held {
  window: number;
  limit: number;
  resetAt: number;
  /** Ordinals not yet taken, lowest range first. */
  ranges: [number, number][];
}

export interface LeasedRateLimiter extends RateLimiter {
  /** Gives back what is held of `keyId`'s leases in `window` (empty when nothing is). */
  recall(keyId: string, window: number): OrdinalRange[];
  /** Keys with leases held (for tests of the sweep). */
  size(): number;
}

/** `ask` puts the question to the primary. */
export function createLeasedRateLimiter(ask: (keyId: string, nowMs: number) => Promise<RateGrant>): LeasedRateLimiter {
  const held = new Map<string, Held>();
  let newestWindow = -Infinity;

  const fromLease = (keyId: string, window: number): RateLimitDecision | undefined => {
    const lease = held.get(keyId);
    if (lease === undefined || lease.window !== window) return undefined;
    const range = lease.ranges[0]!;
    const ordinal = range[0]++;
    if (range[0] === range[1]) lease.ranges.shift();
    if (lease.ranges.length === 0) held.delete(keyId);
    return { allowed: true, limit: lease.limit, remaining: lease.limit - ordinal, resetAt: lease.resetAt };
  };

  const keep = (keyId: string, grant: RateGrant): void => {
    if (grant.lease === undefined) return;
    const { window, ranges } = grant.lease;
    const lease = held.get(keyId);
    const copies = ranges.map(([from, to]): [number, number] => [from, to]).filter(([from, to]) => from < to);
    if (copies.length === 0) return;
    if (lease !== undefined && lease.window === window) {
      lease.ranges.push(...copies);
      lease.ranges.sort((a, b) => a[0] - b[0]);
    } else if (lease === undefined || lease.window < window) {
      held.set(keyId, { window, limit: grant.decision.limit, resetAt: grant.decision.resetAt, ranges: copies });
    }
  };

  const askPrimary = async (keyId: string, nowMs: number): Promise<RateLimitDecision> => {
    const grant = await ask(keyId, nowMs);
    keep(keyId, grant);
    return grant.decision;
  };

  return {
    consume: (keyId, nowMs) => {
      const window = Math.floor(nowMs / WINDOW_MS);
      if (window > newestWindow) {
        newestWindow = window;
        // Leases of past windows are worth nothing now.
        for (const [key, lease] of held) if (lease.window < window) held.delete(key);
      }
      // On a lease it holds, the worker decides at once; otherwise it asks the primary.
      return fromLease(keyId, window) ?? askPrimary(keyId, nowMs);
    },
    recall(keyId, window) {
      const lease = held.get(keyId);
      if (lease === undefined || lease.window !== window) return [];
      held.delete(keyId);
      return lease.ranges;
    },
    size: () => held.size,
  };
}
