/**
 * The time an exit pool reads and waits with, injectable so unit tests run
 * on a manual clock. `sleepClock` turns an injected `sleep` that may not
 * really wait (tests that only record delays) into a clock that moves only
 * by what was slept, so the waits it asks for are exact and repeatable.
 * `realSleep` is the one abortable wait the client, the fetch and its queue
 * wait with too.
 */
/** Waits `ms`, or rejects with the signal's reason when it aborts. */
export type Sleep = (ms: number, signal?: AbortSignal) => Promise<void>;

export interface ExitClock {
  now(): number;
  /** Resolves after `ms`, or rejects with the signal's reason when it aborts. */
  sleep(ms: number, signal?: AbortSignal): Promise<void>;
}

export function realSleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
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
}

export const REAL_CLOCK: ExitClock = { now: () => Date.now(), sleep: realSleep };

/** A clock on `sleep` alone: it starts at the wall time and moves only by what was slept. */
export function sleepClock(sleep: Sleep): ExitClock {
  let now = Date.now();
  return {
    now: () => now,
    async sleep(ms, signal) {
      await sleep(ms, signal);
      now += ms;
    },
  };
}
