/**
 * The files a build writes (staging, side indexes, the artifact database
 * until it is renamed into place) are scratch: a failed build is thrown
 * away and started again, so they need no rollback journal and no syncs.
 *
 * better-sqlite3 opens every connection in SQLite's defensive mode, which
 * refuses `journal_mode = OFF` without an error: the pragma answers with the
 * mode it kept ("delete"), and every transaction of the build kept a
 * rollback journal of the pages it changed. The pragmas here run with
 * defensive mode lifted; the journal mode stays off after it returns.
 */
import type Database from "better-sqlite3";

/** No rollback journal, no syncs. */
export const SCRATCH_PRAGMAS = ["journal_mode = OFF", "synchronous = OFF"] as const;

/** Runs `pragmas` (settings of our own, never input) on `db` with defensive mode lifted; throws if the journal mode did not take. */
export function setScratchPragmas(db: Database.Database, pragmas: readonly string[]): void {
  db.unsafeMode(true);
  try {
    for (const pragma of pragmas) db.pragma(pragma);
  } finally {
    db.unsafeMode(false);
  }
  const mode = db.pragma("journal_mode", { simple: true });
  if (pragmas.includes("journal_mode = OFF") && mode !== "off") throw new Error(`The build's journal mode is ${String(mode)}, not off`);
}
