/**
 * Errors that say an artifact set's database file is damaged (better-sqlite3
 * throws SqliteError with SQLite's extended code): corrupt pages or indexes,
 * or not a database at all. I/O errors are left out: they also come from the
 * live store's disk (a full DATA_DIR), which another set would not cure.
 */
const FAULT_CODES = /^SQLITE_(CORRUPT(_\w+)?|NOTADB|FORMAT)$/;

/** The SQLite code of a database fault in `error` or its causes, if there is one. */
export function databaseFault(error: unknown): string | undefined {
  for (let e = error, depth = 0; e !== null && typeof e === "object" && depth < 5; e = (e as { cause?: unknown }).cause, depth++) {
    const code = (e as { code?: unknown }).code;
    if (typeof code === "string" && FAULT_CODES.test(code)) return code;
  }
  return undefined;
}
