/**
 * The shared live store in PostgreSQL (DATABASE_URL), as the server and the
 * pipeline agree on it: the live store of docs/live-store.md, shared by every
 * replica. Table `live_records` holds one row per live fetch with a `seq`
 * (bigserial, never reused: trimming deletes rows but never resets the
 * sequence) and `live_store_meta` the store's random id, made once.
 *
 * Every insert takes a transaction-scoped advisory lock before it draws its
 * number, so rows become visible in `seq` order: a reader that has seen row
 * n has seen every row below n, and "rows after n" never skips one that
 * commits later. Live fetches are few; the serialisation costs nothing.
 */
import { randomUUID } from "node:crypto";
import pg from "pg";
import type { VideoRecord } from "../contract/index.js";
import type { LiveRecord } from "./live-records.js";

/** NOTIFY channel of a committed row (payload: its seq). */
export const LIVE_CHANNEL_NAME = "transcript_live_records";
/** Advisory lock keys: "trlv" (inserts, in seq order) and "trls" (schema). */
const INSERT_LOCK = 0x74726c76;
const SCHEMA_LOCK = 0x74726c73;

const DDL = `
CREATE TABLE IF NOT EXISTS live_store_meta (key text PRIMARY KEY, value text NOT NULL);
CREATE TABLE IF NOT EXISTS live_records (
  seq bigserial PRIMARY KEY,
  video_id text NOT NULL,
  record text NOT NULL,
  fetched_at timestamptz NOT NULL
);
`;

type Queryable = Pick<pg.Client, "query">;

/** Makes the tables (once, whoever comes first) and returns the store id. */
export async function ensureSharedLiveStore(client: pg.Client): Promise<string> {
  await client.query("BEGIN");
  try {
    await client.query("SELECT pg_advisory_xact_lock($1::bigint)", [SCHEMA_LOCK]);
    await client.query(DDL);
    await client.query("INSERT INTO live_store_meta (key, value) VALUES ('store_id', $1) ON CONFLICT (key) DO NOTHING", [randomUUID()]);
    const { rows } = await client.query<{ value: string }>("SELECT value FROM live_store_meta WHERE key = 'store_id'");
    await client.query("COMMIT");
    return rows[0]!.value;
  } catch (error) {
    await client.query("ROLLBACK").catch(() => undefined);
    throw error;
  }
}

/** Commits one record durably and returns its sequence number; notifies every listening replica. */
export async function insertSharedRecord(client: pg.Client, record: VideoRecord, fetchedAt: Date): Promise<number> {
  await client.query("BEGIN");
  try {
    await client.query("SELECT pg_advisory_xact_lock($1::bigint)", [INSERT_LOCK]);
    const { rows } = await client.query<{ seq: string }>(
      "INSERT INTO live_records (video_id, record, fetched_at) VALUES ($1, $2, $3) RETURNING seq",
      [record.videoId, JSON.stringify(record), fetchedAt],
    );
    const seq = Number(rows[0]!.seq);
    await client.query(`SELECT pg_notify('${LIVE_CHANNEL_NAME}', $1)`, [String(seq)]);
    await client.query("COMMIT");
    return seq;
  } catch (error) {
    await client.query("ROLLBACK").catch(() => undefined);
    throw error;
  }
}

/** Rows with `afterSeq < seq <= throughSeq`, in sequence order, at most `limit`. */
export async function sharedRecords(client: Queryable, afterSeq: number, throughSeq = Number.MAX_SAFE_INTEGER, limit = 1_000): Promise<LiveRecord[]> {
  const { rows } = await client.query<{ seq: string; record: string; fetched_at: Date }>(
    "SELECT seq, record, fetched_at FROM live_records WHERE seq > $1 AND seq <= $2 ORDER BY seq LIMIT $3",
    [afterSeq, throughSeq, limit],
  );
  return rows.map((row) => ({ seq: Number(row.seq), record: JSON.parse(row.record) as VideoRecord, fetchedAt: row.fetched_at.toISOString() }));
}

/** The highest sequence number held (0 when empty). */
export async function sharedMaxSeq(client: Queryable): Promise<number> {
  const { rows } = await client.query<{ max: string }>("SELECT coalesce(max(seq), 0) AS max FROM live_records");
  return Number(rows[0]!.max);
}

/** Deletes rows up to `throughSeq` (every published set holds them); returns how many left. */
export async function trimSharedRecords(client: Queryable, throughSeq: number): Promise<number> {
  if (throughSeq <= 0) return 0;
  const result = await client.query("DELETE FROM live_records WHERE seq <= $1", [throughSeq]);
  return result.rowCount ?? 0;
}

/** A connection with the tables made; the caller ends it. */
export async function connectSharedLiveStore(url: string, applicationName: string): Promise<{ client: pg.Client; storeId: string }> {
  const client = new pg.Client({ connectionString: url, application_name: applicationName, connectionTimeoutMillis: 5_000 });
  await client.connect();
  try {
    return { client, storeId: await ensureSharedLiveStore(client) };
  } catch (error) {
    await client.end().catch(() => undefined);
    throw error;
  }
}
