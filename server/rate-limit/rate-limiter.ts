/**
 * The rate-limit contract. Kept to one method so a shared (Redis) limiter can
 * implement it later; the in-memory one is `memory-rate-limiter.ts`.
 */
import { HttpError } from "../http/http-error.js";
import type { DocumentedProblem } from "../http/route.js";

export interface RateLimitDecision {
  allowed: boolean;
  limit: number;
  remaining: number;
  /** Unix seconds at which the current window ends. */
  resetAt: number;
}

export interface RateLimiter {
  /** Counts one request of `keyId` at `nowMs` if the window has room; a refused request is not counted. */
  consume(keyId: string, nowMs: number): Promise<RateLimitDecision>;
}

export function rateLimitHeaders(decision: RateLimitDecision): Record<string, string> {
  return {
    "X-RateLimit-Limit": String(decision.limit),
    "X-RateLimit-Remaining": String(decision.remaining),
    "X-RateLimit-Reset": String(decision.resetAt),
  };
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
