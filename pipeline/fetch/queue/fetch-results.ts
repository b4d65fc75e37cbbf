/**
 * Where fetch workers put what they fetched: table `fetch_results` of the
 * shared PostgreSQL, one row per video (the primary key), so a result
 * written twice (a worker killed between writing it and ending its job) is
 * one row, never two. The run folds the rows into its pipeline state before
 * it enqueues and before it builds (fold-fetch-results.ts), then deletes
 * them; `seq` is drawn anew by every write, so a row rewritten meanwhile is
 * not deleted unread.
 */
import type pg from "pg";
import type { VideoRecord } from "../../artifact/contract/index.js";

export type FetchResultOutcome = "fetched" | "permanent" | "failed";

export interface FetchResultRow {
  videoId: string;
  /** The job that wrote it (job-key.ts). */
  jobId: string;
  outcome: FetchResultOutcome;
  /** The fetched record (`fetched`). */
  record?: VideoRecord;
  /** The YouTubeError code and message (`permanent`, `failed`). */
  code?: string;
  message?: string;
  /** `host:pid` of the worker. */
  worker: string;
  finishedAt: Date;
}

export interface StoredFetchResult extends FetchResultRow {
  seq: number;
}

type Queryable = Pick<pg.Client, "query">;

export const FETCH_RESULTS_DDL = `
CREATE TABLE IF NOT EXISTS fetch_results (
  video_id text PRIMARY KEY,
  seq bigserial NOT NULL,
  job_id uuid NOT NULL,
  outcome text NOT NULL CHECK (outcome IN ('fetched', 'permanent', 'failed')),
  record text,
  code text,
  message text,
  worker text NOT NULL,
  finished_at timestamptz NOT NULL
);
CREATE INDEX IF NOT EXISTS fetch_results_seq ON fetch_results (seq);
`;

/**
 * Writes a result, durably, before its job is completed. A fetched record is
 * never replaced by a later failure of the same video: a failure written
 * over it would lose a transcript.
 */
export async function saveFetchResult(db: Queryable, row: FetchResultRow): Promise<void> {
  await db.query(
    `INSERT INTO fetch_results (video_id, job_id, outcome, record, code, message, worker, finished_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8)
     ON CONFLICT (video_id) DO UPDATE SET seq = DEFAULT, job_id = excluded.job_id, outcome = excluded.outcome, record = excluded.record,
       code = excluded.code, message = excluded.message, worker = excluded.worker, finished_at = excluded.finished_at
     WHERE fetch_results.outcome <> 'fetched' OR excluded.outcome = 'fetched'`,
    [
      row.videoId,
      row.jobId,
      row.outcome,
      row.record === undefined ? null : JSON.stringify(row.record),
      row.code ?? null,
      row.message?.slice(0, 500) ?? null,
      row.worker,
      row.finishedAt,
    ],
  );
}

/** The job that wrote the video's result, if a result is waiting to be folded. */
export async function resultJobOf(db: Queryable, videoId: string): Promise<string | undefined> {
  const { rows } = await db.query<{ job_id: string }>("SELECT job_id FROM fetch_results WHERE video_id = $1", [videoId]);
  return rows[0]?.job_id;
}

/** Results with `seq > afterSeq`, in `seq` order, at most `limit`. */
export async function readFetchResults(db: Queryable, afterSeq: number, limit: number): Promise<StoredFetchResult[]> {
  const { rows } = await db.query<{
    video_id: string;
    seq: string;
    job_id: string;
    outcome: FetchResultOutcome;
    record: string | null;
    code: string | null;
    message: string | null;
    worker: string;
    finished_at: Date;
  }>("SELECT * FROM fetch_results WHERE seq > $1 ORDER BY seq LIMIT $2", [afterSeq, limit]);
  return rows.map((row) => ({
    videoId: row.video_id,
    seq: Number(row.seq),
    jobId: row.job_id,
    outcome: row.outcome,
    ...(row.record !== null ? { record: JSON.parse(row.record) as VideoRecord } : {}),
    ...(row.code !== null ? { code: row.code } : {}),
    ...(row.message !== null ? { message: row.message } : {}),
    worker: row.worker,
    finishedAt: row.finished_at,
  }));
}

/** Deletes the folded rows: those read, unless rewritten since (a new `seq`). */
export async function deleteFetchResults(db: Queryable, rows: readonly StoredFetchResult[]): Promise<void> {
  if (rows.length === 0) return;
  await db.query("DELETE FROM fetch_results WHERE (video_id, seq) IN (SELECT * FROM unnest($1::text[], $2::bigint[]))", [
    rows.map((row) => row.videoId),
    rows.map((row) => row.seq),
  ]);
}
