/**
 * The transcript index and its term statistics, built on a worker thread
 * into a file of their own, while the build's main thread builds the
 * phrase-pair index (build-database.ts). Each of the two is one long
 * SQLite write on one core; at once, they use both of the machine's cores.
 *
 * The worker reads the transcripts from the finished tables of the
 * artifact database, which nobody writes while it runs, and writes
 * `transcript_fts` (bulk-loaded and merged, fts-bulk-load.ts), `term_stats`
 * and the word bitmaps read off them (pipeline/word-bitmaps.ts) into
 * `indexPath`; the build then copies all three into the artifact database.
 */
import { fileURLToPath } from "node:url";
import { TERM_STATS_DDL, TRANSCRIPT_FTS_DDL } from "../contract.js";
import { sqliteWorker } from "../sqlite-worker.js";
import { bulkLoadStatements } from "./fts-bulk-load.js";

/** Plain CommonJS evaluated in the worker (sqlite-worker.ts); it sets its pragmas with scratch.ts, loaded through tsx. */
const WORKER_SOURCE = `
const { parentPort, workerData } = require("node:worker_threads");
const Database = require(workerData.driver);
(async () => {
  let db;
  try {
    const { tsImport } = await import(workerData.tsx);
    const { setScratchPragmas } = await tsImport(workerData.scratch, workerData.parent);
    const { buildWordBitmaps } = await tsImport(workerData.wordBitmaps, workerData.parent);
    db = new Database(workerData.path);
    setScratchPragmas(db, workerData.pragmas);
    for (const sql of workerData.setup) db.exec(sql);
    db.prepare("ATTACH DATABASE ? AS src").run(workerData.source);
    let started = performance.now();
    const step = (name) => {
      const now = performance.now();
      parentPort.postMessage({ step: name, seconds: (now - started) / 1000 });
      started = now;
    };
    db.transaction(() => {
      db.exec("INSERT INTO transcript_fts (rowid, script, chan) SELECT id, script, chan FROM src.fts_content ORDER BY id");
    })();
    step("transcript index");
    const [documents, lastRowid] = db.prepare("SELECT count(*), coalesce(max(id), 0) FROM src.fts_content").raw().get();
    db.exec("DETACH DATABASE src");
    // One b-tree per term instead of many segments: fewer seeks per query.
    db.exec("INSERT INTO transcript_fts (transcript_fts) VALUES ('optimize')");
    step("transcript index merged");
    db.exec(workerData.termStats);
    step("term statistics");
    buildWordBitmaps(db, documents, lastRowid);
    step("word bitmaps");
  } catch (error) {
    // Said in a message: an error thrown across threads can lose its text.
    parentPort.postMessage({ error: String((error && error.message) || error) });
  } finally {
    if (db) db.close();
  }
})();
`;

const TERM_STATS_SQL = `
CREATE VIRTUAL TABLE temp.fts_terms USING fts5vocab(main, transcript_fts, row);
INSERT INTO term_stats (term, df) SELECT term, doc FROM temp.fts_terms;
DROP TABLE temp.fts_terms;`;

/**
 * Builds `transcript_fts` and `term_stats` from `sourcePath`'s `fts_content`
 * into a new database at `indexPath`, on a worker thread, whose settings
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
): { done: Promise<void>; stop: () => Promise<number> } {
  const worker = sqliteWorker(WORKER_SOURCE, indexPath, {
    source: sourcePath,
    scratch: fileURLToPath(new URL("./scratch.ts", import.meta.url)),
    wordBitmaps: fileURLToPath(new URL("../word-bitmaps.ts", import.meta.url)),
    parent: import.meta.url,
    pragmas,
    setup: [TRANSCRIPT_FTS_DDL, TERM_STATS_DDL, ...bulkLoadStatements("transcript_fts")],
    termStats: TERM_STATS_SQL,
  });
  const done = new Promise<void>((resolve, reject) => {
    let failure: Error | undefined;
    worker.on("message", (message: { step: string; seconds: number } | { error: string }) => {
      if ("error" in message) failure = new Error(`Building the transcript index failed: ${message.error}`);
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
