/**
 * The rate-limit contract. Kept to one method so a shared (Redis) limiter can
 * implement it later; the in-memory one is `memory-rate-limiter.ts`.
 */
import { HttpError } from "../problem/http-error.js";
import type { DocumentedProblem } from "../problem/documented-problem.js";

export interface RateLimitDecision {
  allowed: boolean;
  limit: number;
  remaining: number;
  /** Unix seconds at which the current window ends. */
  resetAt: number;
}

export interface RateLimiter {
  /**
   * Counts one request of `keyId` at `nowMs` if the window has room; a refused request is not counted.
   * A limiter that can decide at once (in memory, or on a lease it holds) answers without a promise.
   */
  consume(keyId: string, nowMs: number): RateLimitDecision | Promise<RateLimitDecision>;
}

/** The policy's name in the RateLimit and RateLimit-Policy fields: every key has the one per-minute quota. */
export const RATE_LIMIT_POLICY = "default";
/** The window of the quota, in seconds (a clock minute: memory-rate-limiter.ts). */
const WINDOW_SECONDS = 60;

/**
 * The headers every keyed response carries: `X-RateLimit-*` (the de-facto
 * form), and `RateLimit-Policy` / `RateLimit` as the IETF httpapi
 * ratelimit-headers draft writes them (structured fields: a quota `q` per
 * window `w` seconds; `r` remaining and `t` seconds until the window resets).
 */
export function rateLimitHeaders(decision: RateLimitDecision, nowMs: number): Record<string, string> {
  return {
    "X-RateLimit-Limit": String(decision.limit),
    "X-RateLimit-Remaining": String(decision.remaining),
    "X-RateLimit-Reset": String(decision.resetAt),
    "RateLimit-Policy": `"${RATE_LIMIT_POLICY}";q=${decision.limit};w=${WINDOW_SECONDS}`,
    RateLimit: `"${RATE_LIMIT_POLICY}";r=${decision.remaining};t=${secondsToReset(decision, nowMs)}`,
  };
}

/** Whole seconds until the window ends (rounded up, so a client waiting that long finds a new window). */
function secondsToReset(decision: RateLimitDecision, nowMs: number): number {
  return Math.max(0, Math.ceil(decision.resetAt - nowMs / 1000));
}

/** Whole seconds until the window ends, at least 1 (a 0 would invite an immediate retry storm). */
export function retryAfterSeconds(decision: RateLimitDecision, nowMs: number): number {
  return Math.max(1, Math.ceil(decision.resetAt - nowMs / 1000));
}

/** The answer over the limit, for the OpenAPI document of every authenticated route. */
export const RATE_LIMITED_PROBLEM: DocumentedProblem = {
  status: 429,
  code: "rate_limited",
  description: "Over the key's requests per minute; Retry-After says when the window ends.",
  retryAfter: true,
};

export function rateLimitedError(decision: RateLimitDecision, nowMs: number): HttpError {
  return new HttpError(429, RATE_LIMITED_PROBLEM.code, `Rate limit of ${decision.limit} requests per minute exceeded.`, {
    headers: { "Retry-After": String(retryAfterSeconds(decision, nowMs)) },
  });
}
