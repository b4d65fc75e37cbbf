/** Builds an artifact set's phrase-pair index (format: pipeline/artifact/search-index/phrase-pairs.ts). */
import type Database from "better-sqlite3";
import { PHRASE_PAIRS_DDL } from "../artifact/search-index/index.js";
import { mergeInSteps, prepareBulkLoad } from "./fts-bulk-load.js";
import { throwIfInterrupted } from "../command/interrupt.js";
import { pairTextBatches } from "./pair-texts.js";

/**
 * Creates and fills `phrase_pairs` in `db` from the `fts_content` view (the
 * searched track of each video, by rowid) of the artifact database at
 * `sourcePath`, another file, whose pair texts a worker thread makes
 * (pair-texts.ts); then merges it into one segment per term, loaded
 * as the transcript index is (fts-bulk-load.ts: a fifth less time
 * than FTS5's defaults at 20,000 transcripts, by hand). The caller records
 * `PHRASE_PAIRS_VERSION` in `meta.phrasePairs`.
 */
export async function buildPhrasePairs(
  db: Database.Database,
  sourcePath: string,
  signal?: AbortSignal,
  onThisThread = false,
  /** Transcripts indexed so far, after each batch. */
  onProgress: (done: number) => void = () => {},
): Promise<void> {
  db.exec(PHRASE_PAIRS_DDL);
  prepareBulkLoad(db, "phrase_pairs");
  const insert = db.prepare("INSERT INTO phrase_pairs (rowid, pairs, chan) VALUES (?, ?, ?)");
  // Not db.transaction(): it cannot span the waits for batches.
  db.exec("BEGIN");
  let done = 0;
  try {
    for await (const rows of pairTextBatches(sourcePath, undefined, onThisThread)) {
      // Leaving the loop stops the pair texts' worker.
      throwIfInterrupted(signal);
      for (const [id, pairs, chan] of rows) insert.run(id, pairs, chan);
      done += rows.length;
      onProgress(done);
    }
    db.exec("COMMIT");
  } catch (error) {
    if (db.inTransaction) db.exec("ROLLBACK");
    throw error;
  }
  // One segment, as 'optimize' leaves, merged in steps so that the build can stop between them.
  await mergeInSteps(db, "phrase_pairs", signal);
}
