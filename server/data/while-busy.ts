/** Retrying the SQLite steps at open that another process's lock can refuse without waiting. */
import Database from "better-sqlite3";

/**
 * Runs `step` again while SQLite answers SQLITE_BUSY, for up to `ms`: for the
 * steps at open that another process's lock can refuse at once, where the
 * busy timeout does not wait (a journal mode change). Start-up only: it
 * sleeps the thread between tries.
 */
export function whileBusy<T>(step: () => T, ms = 5000): T {
  const deadline = performance.now() + ms;
  const pause = new Int32Array(new SharedArrayBuffer(4));
  for (;;) {
    try {
      return step();
    } catch (error) {
      const busy = error instanceof Database.SqliteError && error.code.startsWith("SQLITE_BUSY");
      if (!busy || performance.now() > deadline) throw error;
      Atomics.wait(pause, 0, 0, 10);
    }
  }
}
