/**
 * The frame every pipeline command that writes something runs in (run,
 * build, install-set, export, worker), written once: the locks it holds,
 * the stop signals it hears (stop-signals.ts), and the exit code of each
 * way it can end. An error the user can act on is one line on stderr and
 * its exit code (exit-codes.ts); any other is thrown, and the CLI prints it
 * and exits 1.
 */
import { LockHeldError } from "../state/acquire-lock.js";
import { takeRunLocks, type RunLocks, type RunLocksOptions } from "../state/run-locks.js";
import { EXIT, type ExitCode } from "./exit-codes.js";
import { listenForStop, type StopSignalsOptions } from "./stop-signals.js";

type ErrorClass = abstract new (...args: never[]) => Error;

/** An error a command ends on: its class, its exit code, and the line said on stderr (default: its message). */
export type ErrorExit = readonly [ErrorClass, ExitCode] | readonly [ErrorClass, ExitCode, (error: Error) => string];

export interface CommandContext {
  /** Aborted by the first SIGTERM or SIGINT. */
  signal: AbortSignal;
  /** Aborted by a second one, when the command says what that does. */
  again: AbortSignal;
  /** The locks held, when the command asked for them. */
  locks: RunLocks | undefined;
}

export interface RunAsCommandOptions {
  /** Checks made before any lock is taken, so an input that cannot be read changes nothing; their errors end the command as `exits` says. */
  before?: () => Promise<void>;
  /** Held while `work` runs. Default: none (the work takes what it needs, or writes nothing shared). */
  lock?: RunLocksOptions;
  stop: StopSignalsOptions;
  /** The errors the command ends on, first match first; a LockHeldError always ends it with its message and exit 3. */
  exits: readonly ErrorExit[];
  /** The command's work, resolving with its exit code. */
  work: (context: CommandContext) => Promise<number>;
}

export async function runAsCommand(options: RunAsCommandOptions): Promise<number> {
  const exits: readonly ErrorExit[] = [[LockHeldError, EXIT.locked], ...options.exits];
  let locks: RunLocks | undefined;
  try {
    await options.before?.();
    if (options.lock) locks = await takeRunLocks(options.lock);
  } catch (error) {
    return endOn(error, exits);
  }
  const stop = listenForStop(options.stop);
  try {
    return await options.work({ signal: stop.signal, again: stop.again, locks });
  } catch (error) {
    return endOn(error, exits);
  } finally {
    stop.remove();
    await locks?.release();
  }
}

/** Says `error` and answers its exit code, or throws it again when it is none of `exits`. */
function endOn(error: unknown, exits: readonly ErrorExit[]): number {
  for (const [type, code, say] of exits) {
    if (!(error instanceof type)) continue;
    console.error(say ? say(error) : error.message);
    return code;
  }
  throw error;
}
