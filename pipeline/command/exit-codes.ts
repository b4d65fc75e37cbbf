/**
 * Exit codes of `npm run pipeline -- run`, one meaning each, so a scheduler
 * (cron mail, a systemd `OnFailure=`, a CI step) can tell "try later" from
 * "someone must look".
 */
export const EXIT = {
  /** Everything asked for was done (permanent outcomes such as "no transcript" are results, not failures). */
  ok: 0,
  /** The run failed: configuration, state database, build or publish error. Nothing half-written is published. */
  failed: 1,
  /** Bad command line or channel list; nothing was done. */
  usage: 2,
  /** Another run holds the lock; nothing was done. Try again later. */
  locked: 3,
  /** The run finished and published, but some fetches or channels failed in a way a later run may fix (blocked, timeouts, 5xx). */
  partial: 4,
  /** The new set would drop most of what is served (or all of it), so it was not published; `--force` publishes it. */
  refused: 5,
  /** Stopped by SIGINT/SIGTERM; everything fetched so far is kept and the next run continues. */
  interrupted: 130,
} as const;

export type ExitCode = (typeof EXIT)[keyof typeof EXIT];

/** Exit codes that mean the caller's input was wrong, thrown from argument and list parsing. */
export class UsageError extends Error {
  override name = "UsageError";
}
