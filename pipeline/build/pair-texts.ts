/**
 * The pair texts of an artifact database's transcripts (`pairText` of
 * phrase-pairs.ts), made on a worker thread a batch ahead of the thread
 * that indexes them. Making them is about a fifth of the phrase-pair
 * index's time on one thread; FTS5's insert is the rest, so the indexing thread does only that.
 *
 * The worker (pair-texts-worker.ts) runs this module's `pairTextReader`, so
 * both threads make pairs with the same code.
 */
import Database from "better-sqlite3";
import { pairText } from "../artifact/search-index/index.js";
import { tsWorker } from "../artifact/worker-thread/index.js";

/** One transcript's row of the phrase-pair index: rowid, pair text, channel token. */
export type PairRow = [id: number, pairs: string, chan: string];

/** Transcripts per batch: a batch of average ones is a few megabytes of text. */
const BATCH_ROWS = 500;

/** What the worker (pair-texts-worker.ts) is given. */
export interface PairTextsWorkerData {
  path: string;
  batchRows: number;
}

/** The next batch of `db`'s pair rows at each call, in rowid order; an empty batch ends them and closes `db`. */
export function pairTextReader(db: Database.Database, batchRows: number): () => PairRow[] {
  const slice = db.prepare("SELECT id, script, chan FROM fts_content WHERE id > ? ORDER BY id LIMIT ?").raw();
  let after = 0;
  return () => {
    const rows = slice.all(after, batchRows) as PairRow[];
    if (rows.length > 0) after = rows[rows.length - 1]![0];
    for (const row of rows) row[1] = pairText(row[1]);
    if (rows.length === 0) db.close();
    return rows;
  };
}

/**
 * The rows of the phrase-pair index of the artifact database at `path`, in
 * rowid order, in batches. The worker makes the next batch while the caller
 * handles this one (`onThisThread`: made here, for a small set, faster than
 * starting a worker). Breaking off the iteration stops the worker.
 */
export async function* pairTextBatches(path: string, batchRows = BATCH_ROWS, onThisThread = false): AsyncGenerator<PairRow[]> {
  if (onThisThread) {
    const db = new Database(path, { readonly: true, fileMustExist: true });
    try {
      const next = pairTextReader(db, batchRows);
      for (let rows = next(); rows.length > 0; rows = next()) yield rows;
    } finally {
      if (db.open) db.close();
    }
    return;
  }
  const data: PairTextsWorkerData = { path, batchRows };
  const worker = tsWorker(new URL("./pair-texts-worker.ts", import.meta.url), data);
  const replies: Array<{ rows: PairRow[] } | { error: string } | Error> = [];
  let wake: (() => void) | undefined;
  const arrive = (reply: (typeof replies)[number]) => {
    replies.push(reply);
    wake?.();
  };
  worker.on("message", arrive);
  worker.on("error", arrive);
  worker.on("exit", (code) => arrive(new Error(`The pair texts' worker exited with code ${code}`)));
  const next = async () => {
    while (replies.length === 0) await new Promise<void>((resolve) => (wake = resolve));
    const reply = replies.shift()!;
    if (reply instanceof Error) throw reply;
    if ("error" in reply) throw new Error(`Making the pair texts failed: ${reply.error}`);
    return reply.rows;
  };
  try {
    worker.postMessage(null);
    for (;;) {
      const rows = await next();
      if (rows.length === 0) return;
      // The next batch is made while this one is indexed.
      worker.postMessage(null);
      yield rows;
    }
  } finally {
    worker.removeAllListeners();
    await worker.terminate();
  }
}
