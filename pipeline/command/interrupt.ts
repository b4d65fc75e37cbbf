/**
 * How a build is stopped: its caller aborts an AbortSignal, and the build
 * checks it between its steps and between the bounded chunks of its long
 * ones. better-sqlite3 blocks the thread it runs on, so a long step yields
 * to the event loop between chunks: that is when a signal handler (SIGTERM)
 * runs and aborts.
 */
import { setImmediate as yieldOnce } from "node:timers/promises";

/** A build stopped by its signal: its partial directory was removed and nothing was published. */
export class BuildInterrupted extends Error {
  override name = "BuildInterrupted";
}

/** Throws BuildInterrupted if `signal` is aborted. */
export function throwIfInterrupted(signal: AbortSignal | undefined): void {
  if (signal?.aborted) throw new BuildInterrupted(`The build was interrupted: ${reasonOf(signal)}`);
}

/** Lets pending events (a signal handler) run, then throws BuildInterrupted if `signal` was aborted meanwhile. */
export async function checkpoint(signal: AbortSignal | undefined): Promise<void> {
  if (!signal) return;
  await yieldOnce();
  throwIfInterrupted(signal);
}

function reasonOf(signal: AbortSignal): string {
  const reason: unknown = signal.reason;
  return reason instanceof Error ? reason.message : String(reason);
}
