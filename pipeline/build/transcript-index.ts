/**
 * The transcript index and its term statistics, built on a worker thread
 * into a file of their own, while the build's main thread builds the
 * phrase-pair index (build-database.ts). Each of the two is one long
 * SQLite write on one core; at once, they use both of the machine's cores.
 *
 * The worker reads the transcripts from the finished tables of the
 * artifact database, which nobody writes while it runs, and writes
 * `transcript_fts` (bulk-loaded and merged, fts-bulk-load.ts), `term_stats`
 * and the word bitmaps read off them (pipeline/artifact/search-index/word-bitmaps.ts) into
 * `indexPath`; the build then copies all three into the artifact database.
 */
import Database from "better-sqlite3";
import { TERM_STATS_DDL, TRANSCRIPT_FTS_DDL } from "../artifact/contract/index.js";
import { tsWorker } from "../artifact/worker-thread/index.js";
import { buildWordBitmaps } from "./build-word-bitmaps.js";
import { bulkLoadStatements, mergeStatement } from "./fts-bulk-load.js";
import { setScratchPragmas } from "./scratch.js";

/** What the worker (transcript-index-worker.ts) is given: the index file to write, the artifact database to read, the pragmas. */
export interface TranscriptIndexWorkerData {
  path: string;
  source: string;
  pragmas: readonly string[];
}

/** Videos per statement of the index's insert: well under a second each. */
const CHUNK_ROWS = 2000;

const TERMS_TABLE_SQL = `CREATE VIRTUAL TABLE temp.fts_terms USING fts5vocab(main, transcript_fts, row);`;

/**
 * The index's steps on the thread that calls it, into `db` (a new database
 * whose settings are `pragmas`), from `sourcePath`'s `fts_content`. Each
 * long statement is cut into chunks, so that a worker's terminate() takes
 * effect between them (it cannot stop a statement). `onStep` is told each
 * step's name and seconds as it ends.
 */
export function writeTranscriptIndex(
  db: Database.Database,
  sourcePath: string,
  pragmas: readonly string[],
  onStep: (name: string, seconds: number) => void,
  onProgress: (done: number, total: number) => void = () => {},
): void {
  setScratchPragmas(db, pragmas);
  for (const sql of [TRANSCRIPT_FTS_DDL, TERM_STATS_DDL, ...bulkLoadStatements("transcript_fts")]) db.exec(sql);
  db.prepare("ATTACH DATABASE ? AS src").run(sourcePath);
  let started = performance.now();
  const step = (name: string) => {
    const now = performance.now();
    onStep(name, (now - started) / 1000);
    started = now;
  };
  const [documents, lastRowid] = db.prepare("SELECT count(*), coalesce(max(id), 0) FROM src.fts_content").raw().get() as [number, number];
  const chunk = db.prepare("INSERT INTO transcript_fts (rowid, script, chan) SELECT id, script, chan FROM src.fts_content WHERE id > ? AND id <= ? ORDER BY id");
  db.transaction(() => {
    for (let after = 0; after < lastRowid; after += CHUNK_ROWS) {
      chunk.run(after, after + CHUNK_ROWS);
      onProgress(Math.min(after + CHUNK_ROWS, lastRowid), lastRowid);
    }
  })();
  step("transcript index");
  db.exec("DETACH DATABASE src");
  // One b-tree per term instead of many segments: fewer seeks per query. Merged in steps, as terminate() waits for a statement.
  const merge = db.prepare(mergeStatement("transcript_fts"));
  const total = db.prepare("SELECT total_changes()").pluck();
  for (let before = -2; (total.get() as number) - before >= 2; ) {
    before = total.get() as number;
    merge.run();
  }
  step("transcript index merged");
  // Read row by row (JS runs between rows, so terminate() takes effect), then written.
  db.exec(TERMS_TABLE_SQL);
  const terms = db.prepare("SELECT term, doc FROM temp.fts_terms").raw().all() as [string, number][];
  const putTerm = db.prepare("INSERT INTO term_stats (term, df) VALUES (?, ?)");
  db.transaction(() => {
    for (const [term, df] of terms) putTerm.run(term, df);
  })();
  db.exec("DROP TABLE temp.fts_terms");
  step("term statistics");
  buildWordBitmaps(db, documents, lastRowid);
  step("word bitmaps");
}

/**
 * Builds `transcript_fts` and `term_stats` from `sourcePath`'s `fts_content`
 * into a new database at `indexPath`, on a worker thread (on this one with
 * `onThisThread`: for a small set, faster than starting a worker), whose settings
 * are `pragmas` (set by scratch.ts's `setScratchPragmas`). `onStep` is told
 * each step's name and seconds as it ends. Resolves when the file is
 * complete and closed; `stop()` ends the worker early (the file is then
 * incomplete).
 */
export function buildTranscriptIndex(
  indexPath: string,
  sourcePath: string,
  pragmas: readonly string[],
  onStep: (name: string, seconds: number) => void,
  onThisThread = false,
  /** Rows indexed of the total, during the index's longest step. */
  onProgress: (done: number, total: number) => void = () => {},
): { done: Promise<void>; stop: () => Promise<number> } {
  if (onThisThread) {
    const done = (async () => {
      const db = new Database(indexPath);
      try {
        writeTranscriptIndex(db, sourcePath, pragmas, onStep, onProgress);
      } catch (error) {
        throw new Error(`Building the transcript index failed: ${error instanceof Error ? error.message : String(error)}`, { cause: error });
      } finally {
        db.close();
      }
    })();
    return { done, stop: async () => 0 };
  }
  const data: TranscriptIndexWorkerData = { path: indexPath, source: sourcePath, pragmas };
  const worker = tsWorker(new URL("./transcript-index-worker.ts", import.meta.url), data);
  const done = new Promise<void>((resolve, reject) => {
    let failure: Error | undefined;
    worker.on("message", (message: { step: string; seconds: number } | { done: number; total: number } | { error: string }) => {
      if ("error" in message) failure = new Error(`Building the transcript index failed: ${message.error}`);
      else if ("done" in message) onProgress(message.done, message.total);
      else onStep(message.step, message.seconds);
    });
    worker.on("error", reject);
    worker.on("exit", (code) => {
      if (failure) reject(failure);
      else if (code === 0) resolve();
      else reject(new Error(`The transcript index's worker exited with code ${code}`));
    });
  });
  return { done, stop: () => worker.terminate() };
}
