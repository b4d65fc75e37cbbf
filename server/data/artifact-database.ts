/**
 * Read-only connections to a published artifact set's database. A published
 * set is never written (a new build replaces it), so a connection takes its
 * shared lock at its first read and keeps it until it closes (SQLite's
 * EXCLUSIVE locking mode). Without that, SQLite takes and releases a file
 * lock, and looks for a hot journal and a changed file, around every
 * statement: system calls that cost many times what a lookup by key does.
 * Other readers, in this process or another, read as before; only a writer
 * would wait, and none writes a published set.
 */
import Database from "better-sqlite3";

export function openArtifactDatabase(file: string): Database.Database {
  const db = new Database(file, { readonly: true, fileMustExist: true });
  try {
    db.pragma("locking_mode = EXCLUSIVE");
    return db;
  } catch (error) {
    db.close();
    throw error;
  }
}
