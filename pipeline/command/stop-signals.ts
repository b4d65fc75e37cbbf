/**
 * How a pipeline command hears SIGTERM and SIGINT (Ctrl-C): the first one is
 * said and aborts the command's signal, which its work checks at its next
 * step; what a second one does is the command's choice: exit 130 at once,
 * end the process as the signal does by default, or be said and abort a
 * second signal (a worker giving its jobs back).
 */
import { EXIT } from "./exit-codes.js";

export type StopSignalName = "SIGTERM" | "SIGINT";

export interface StopSignalsOptions {
  /** Says the first signal (the command then stops at its next check). */
  first: (name: StopSignalName) => void;
  /**
   * A second signal: `exit` ends the process at once with 130; `default`
   * leaves it to the signal's own action (the process ends by it); a
   * function says it (at each further signal) and aborts `again`.
   */
  again: "exit" | "default" | ((name: StopSignalName) => void);
}

export interface StopSignals {
  /** Aborted by the first signal. */
  readonly signal: AbortSignal;
  /** Aborted by the second, when `again` is a function. */
  readonly again: AbortSignal;
  /** Stops listening. */
  remove(): void;
}

const NAMES: readonly StopSignalName[] = ["SIGTERM", "SIGINT"];

export function listenForStop(options: StopSignalsOptions): StopSignals {
  const first = new AbortController();
  const second = new AbortController();
  const remove = (): void => {
    for (const name of NAMES) process.off(name, handlers[name]);
  };
  const heard = (name: StopSignalName): void => {
    if (!first.signal.aborted) {
      options.first(name);
      first.abort(new Error(`interrupted by ${name}`));
      if (options.again === "default") remove();
      return;
    }
    if (options.again === "exit") process.exit(EXIT.interrupted);
    if (typeof options.again === "function") {
      options.again(name);
      second.abort(new Error(`interrupted again by ${name}`));
    }
  };
  const handlers = { SIGTERM: () => heard("SIGTERM"), SIGINT: () => heard("SIGINT") };
  for (const name of NAMES) process.on(name, handlers[name]);
  return { signal: first.signal, again: second.signal, remove };
}
