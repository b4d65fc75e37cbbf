/**
 * Brings what fetch workers stored in `fetch_results` into the run's
 * pipeline state: fetched records are folded in as any record fetched
 * elsewhere is (PipelineState.absorb: merged with the state's, the video
 * marked fetched), failures are marked as the one-host fetch marks them
 * (permanent: `failed`, retried after an age; otherwise still `pending`).
 * Each batch is committed to the state (synchronous=FULL) before its rows
 * are deleted from PostgreSQL, so a run killed in between folds them again
 * next time: the same record merged twice is the same record.
 */
import type pg from "pg";
import type { PipelineState } from "../../state/open-state.js";
import { failureRow, MARK_FAILED_SQL } from "../../state/state-writes.js";
import { deleteFetchResults, readFetchResults, type StoredFetchResult } from "./fetch-results.js";

export interface FoldedResults {
  /** Rows folded. */
  rows: number;
  fetched: number;
  /** Code → count. */
  permanent: Record<string, number>;
  /** Code → count (the next run tries again). */
  failed: Record<string, number>;
}

const BATCH = 500;

export async function foldFetchResults(options: { state: PipelineState; db: Pick<pg.Client, "query"> }): Promise<FoldedResults> {
  const { state, db } = options;
  const folded: FoldedResults = { rows: 0, fetched: 0, permanent: {}, failed: {} };
  const markFailed = state.db.prepare(MARK_FAILED_SQL);
  const foldFailures = state.db.transaction((rows: StoredFetchResult[]) => {
    for (const row of rows) {
      markFailed.run(failureRow(row.videoId, { permanent: row.outcome === "permanent", code: row.code ?? "unknown", message: row.message ?? "" }, row.finishedAt));
    }
  });
  for (let after = 0; ; ) {
    const rows = await readFetchResults(db, after, BATCH);
    if (rows.length === 0) break;
    const records = rows.filter((row) => row.outcome === "fetched" && row.record !== undefined);
    state.absorb(records.map((row) => ({ record: row.record!, fetchedAt: row.finishedAt.toISOString() })));
    const failures = rows.filter((row) => row.outcome !== "fetched");
    const previousSync = state.db.pragma("synchronous", { simple: true }) as number;
    state.db.pragma("synchronous = FULL");
    try {
      foldFailures(failures);
    } finally {
      state.db.pragma(`synchronous = ${previousSync}`);
    }
    await deleteFetchResults(db, rows);
    folded.rows += rows.length;
    folded.fetched += records.length;
    for (const row of failures) {
      const bucket = row.outcome === "permanent" ? folded.permanent : folded.failed;
      const code = row.code ?? "unknown";
      bucket[code] = (bucket[code] ?? 0) + 1;
    }
    after = rows.at(-1)!.seq;
  }
  return folded;
}
