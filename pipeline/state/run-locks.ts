/**
 * The locks a command that writes DATA_DIR holds while it runs: the run lock
 * of the DATA_DIR (acquire-lock.ts) and, with DATABASE_URL, the lock of every
 * machine sharing that database (shared-lock.ts), taken in that order and
 * let go together. Either held elsewhere throws LockHeldError (exit 3), and
 * nothing stays held.
 */
import { acquireLock, type LockOwner } from "./acquire-lock.js";
import { acquireSharedLock, type SharedLock } from "./shared-lock.js";

export interface RunLocksOptions {
  /** `<DATA_DIR>/pipeline/run.lock` (dataDirLayout's `lock`). */
  lockPath: string;
  /** DATABASE_URL: also the shared lock of every machine using it. Default: the DATA_DIR's lock only. */
  databaseUrl?: string | undefined;
}

export interface RunLocks {
  /** The dead run whose DATA_DIR lock was taken over, if any. */
  readonly tookOver: LockOwner | undefined;
  release(): Promise<void>;
}

export async function takeRunLocks(options: RunLocksOptions): Promise<RunLocks> {
  let shared: SharedLock | undefined;
  if (options.databaseUrl !== undefined) shared = await acquireSharedLock(options.databaseUrl);
  let lock;
  try {
    lock = acquireLock(options.lockPath);
  } catch (error) {
    await shared?.release();
    throw error;
  }
  return {
    tookOver: lock.tookOver,
    async release() {
      lock.release();
      await shared?.release();
    },
  };
}
