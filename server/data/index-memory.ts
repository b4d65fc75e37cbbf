/**
 * The full-text index of an artifact set held in memory: a second read-only
 * connection to the database whose page cache is sized for the index
 * (`transcript_fts_*`, `term_stats`) and filled at start.
 *
 * Why a page cache and not the operating system's: on a machine that
 * reclaims unmapped file pages it has not seen used for a while (this one
 * runs DAMON reclaim), the index of 500,000 transcripts left to the page
 * cache is read back from disk query after query. SQLite's own cache is
 * process memory, which that reclaim leaves alone. The connection is not
 * memory-mapped, so every page it reads lands in that cache; it runs only
 * full-text queries, so transcript text read for ranking and snippets (on
 * the other connection) never pushes index pages out.
 */
import Database from "better-sqlite3";

/** How a warm-up in slices ended (this one and hot-transcripts.ts). */
export interface Warmth {
  /** Bytes read into memory. */
  bytes: number;
  /** "budget": the budget ran out before everything was read; "closed": the database was closed meanwhile. */
  outcome: "complete" | "budget" | "closed";
  ms: number;
}

export type IndexWarmth = Warmth;

export interface WarmOptions {
  /** Stop once this many bytes are read. */
  budgetBytes: number;
  /** Rows read per slice, a few milliseconds of work between two requests (default: the warm-up's own). */
  sliceRows?: number;
  /** Awaited before each slice; default: the next turn of the event loop. */
  pause?: () => Promise<void>;
}

export function openIndexConnection(file: string, budgetBytes: number): Database.Database {
  const db = new Database(file, { readonly: true, fileMustExist: true });
  try {
    db.pragma("mmap_size = 0");
    const pageSize = db.pragma("page_size", { simple: true }) as number;
    // In pages: the budget plus the small tables and the b-tree's interior pages.
    db.pragma(`cache_size = ${Math.ceil(budgetBytes / pageSize) + 4096}`);
    return db;
  } catch (error) {
    db.close();
    throw error;
  }
}

/**
 * Reads the index into the connection's page cache: the vocabulary and the
 * segment index whole, then the segment pages (`transcript_fts_data`, one
 * FTS5 page per row, 2048 per slice, about 8 MiB) until `budgetBytes`. Slices of rows are read between
 * turns of the event loop (`pause`), so a server can warm a set while it
 * serves; stops early when the connection is closed.
 */
export async function warmIndex(db: Database.Database, options: WarmOptions): Promise<IndexWarmth> {
  const { budgetBytes, sliceRows = 2048, pause = () => new Promise<void>((resolve) => setImmediate(resolve)) } = options;
  const started = performance.now();
  let bytes = 0;
  const done = (outcome: IndexWarmth["outcome"]): IndexWarmth => ({ bytes, outcome, ms: performance.now() - started });
  // count(*) visits every leaf page of these small tables.
  for (const table of ["term_stats", "transcript_fts_idx", "transcript_fts_config"]) {
    if (!db.open) return done("closed");
    db.prepare(`SELECT count(*) FROM ${table}`).pluck().get();
  }
  const slice = db.prepare("SELECT id, length(block) AS size FROM transcript_fts_data WHERE id > ? ORDER BY id LIMIT ?").raw();
  let after = Number.MIN_SAFE_INTEGER;
  for (;;) {
    await pause();
    if (!db.open) return done("closed");
    const rows = slice.all(after, sliceRows) as [number, number][];
    for (const [, size] of rows) bytes += size;
    if (rows.length < sliceRows) return done("complete");
    after = rows[rows.length - 1]![0];
    if (bytes >= budgetBytes) return done("budget");
  }
}
