/**
 * A request's total deadline (REQUEST_DEADLINE_MS from its arrival) as an
 * AbortSignal for the waits that could otherwise outlast it: live fetches.
 * The signal also aborts when the client goes away; the reason tells the
 * two apart.
 */
import { performance } from "node:perf_hooks";

/** The abort reason when the deadline passed (not the client leaving). */
export class DeadlineExceeded extends Error {
  override name = "DeadlineExceeded";
  constructor() {
    super("the request's deadline passed");
  }
}

export function isDeadlineExceeded(error: unknown): error is DeadlineExceeded {
  return error instanceof DeadlineExceeded;
}

export interface DeadlineSignal {
  /** Aborted when `signal` aborts (its reason) or at the deadline (a `DeadlineExceeded`). */
  readonly signal: AbortSignal;
  /** Drops the timer and the listener; call it when the wait is over. */
  clear(): void;
}

/**
 * A signal that aborts with `signal` or at `deadline` (a `performance.now()`
 * time), whichever comes first. An infinite deadline sets no timer.
 */
export function untilDeadline(signal: AbortSignal, deadline: number): DeadlineSignal {
  const controller = new AbortController();
  let timer: NodeJS.Timeout | undefined;
  const onAbort = (): void => {
    clearTimeout(timer);
    controller.abort(signal.reason);
  };
  const clear = (): void => {
    clearTimeout(timer);
    signal.removeEventListener("abort", onAbort);
  };
  if (signal.aborted) {
    controller.abort(signal.reason);
    return { signal: controller.signal, clear };
  }
  const remaining = deadline - performance.now();
  if (remaining <= 0) {
    controller.abort(new DeadlineExceeded());
    return { signal: controller.signal, clear };
  }
  signal.addEventListener("abort", onAbort, { once: true });
  if (Number.isFinite(remaining)) {
    timer = setTimeout(() => {
      signal.removeEventListener("abort", onAbort);
      controller.abort(new DeadlineExceeded());
    }, remaining);
    // The server keeps the process alive; a pending deadline alone should not.
    timer.unref();
  }
  return { signal: controller.signal, clear };
}
