/**
 * Retries a call that YouTube refused for this IP (bot check, captcha, 429).
 * The transport hands every request to the next proxy, so a retry leaves
 * from another IP. Anything else is never retried here: a missing video stays
 * missing, and transient failures are the caller's call (a batch job may
 * re-queue, a live request should answer quickly).
 */
import { YouTubeError } from "./errors.js";

export type Sleep = (ms: number, signal?: AbortSignal) => Promise<void>;

export interface BlockedRetryOptions {
  maxBlockedRetries: number;
  /** Delay before the first retry; doubled for each further one. */
  backoffBaseMs: number;
  /** Upper bound of any single delay. */
  backoffMaxMs: number;
  sleep: Sleep;
  /** Source of jitter in [0, 1). */
  random: () => number;
  signal?: AbortSignal;
}

export async function withBlockedRetries<T>(call: () => Promise<T>, options: BlockedRetryOptions): Promise<T> {
  for (let attempt = 0; ; attempt++) {
    try {
      return await call();
    } catch (error) {
      const blocked = error instanceof YouTubeError && error.kind === "blocked";
      if (!blocked || attempt >= options.maxBlockedRetries) throw error;
      await options.sleep(backoffDelay(attempt, options), options.signal);
    }
  }
}

/** Full exponential delay plus up to 50 % jitter, so many workers blocked together do not return together. */
export function backoffDelay(attempt: number, options: Pick<BlockedRetryOptions, "backoffBaseMs" | "backoffMaxMs" | "random">): number {
  const exponential = options.backoffBaseMs * 2 ** attempt;
  const jittered = exponential * (1 + 0.5 * options.random());
  return Math.min(options.backoffMaxMs, Math.round(jittered));
}

export const realSleep: Sleep = (ms, signal) =>
  new Promise((resolve, reject) => {
    if (signal?.aborted) {
      reject(signal.reason);
      return;
    }
    const timer = setTimeout(() => {
      signal?.removeEventListener("abort", onAbort);
      resolve();
    }, ms);
    const onAbort = (): void => {
      clearTimeout(timer);
      reject(signal?.reason);
    };
    signal?.addEventListener("abort", onAbort, { once: true });
  });
