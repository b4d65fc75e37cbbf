/**
 * Retries a call that YouTube refused for the exit it left through (bot
 * check, captcha, 429, …). That exit is now cooling down, so the retry leaves
 * through another one, or waits in the exit pool until one may send: the
 * wait is the pool's, not a delay here. A call no exit could take within its
 * wait (`ExitsResting`) is not retried. Anything else is never retried here:
 * a missing video stays missing, and transient failures are the caller's
 * call (a batch job may re-queue, a live request should answer quickly).
 */
import { YouTubeError } from "./errors.js";
import { ExitsResting } from "./exits/exits-resting.js";

export interface BlockedRetryOptions {
  maxBlockedRetries: number;
}

export async function withBlockedRetries<T>(call: () => Promise<T>, options: BlockedRetryOptions): Promise<T> {
  for (let attempt = 0; ; attempt++) {
    try {
      return await call();
    } catch (error) {
      const blocked = error instanceof YouTubeError && error.kind === "blocked" && !(error instanceof ExitsResting);
      if (!blocked || attempt >= options.maxBlockedRetries) throw error;
    }
  }
}

/** Full exponential delay plus up to 50 % jitter, so many workers blocked together do not return together. */
export function backoffDelay(attempt: number, options: { backoffBaseMs: number; backoffMaxMs: number; random: () => number }): number {
  const exponential = options.backoffBaseMs * 2 ** attempt;
  const jittered = exponential * (1 + 0.5 * options.random());
  return Math.min(options.backoffMaxMs, Math.round(jittered));
}
