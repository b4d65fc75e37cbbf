/**
 * With DATABASE_URL, one pipeline run at a time across every machine sharing
 * that database: a PostgreSQL session advisory lock, taken beside the run
 * lock of the DATA_DIR. It belongs to the run's connection, so a run killed
 * with -9 (or a machine that goes away) releases it when the connection
 * ends; there is nothing stale to take over. A second run refuses at once
 * with a LockHeldError (exit 3), naming the holder when PostgreSQL can.
 */
import { hostname } from "node:os";
import pg from "pg";
import { LockHeldError } from "./acquire-lock.js";

/** The advisory lock's key: "trsc" as a 32-bit number (pg_locks shows it as objid, classid 0). */
export const PIPELINE_LOCK_KEY = 0x74727363;

export class SharedLockHeldError extends LockHeldError {
  constructor(holder: string | undefined) {
    super("the PostgreSQL advisory lock", undefined);
    this.message = `Another pipeline run holds the PostgreSQL advisory lock${holder ? ` (${holder})` : ""}; not starting`;
  }
}

export interface SharedLock {
  release(): Promise<void>;
}

export async function acquireSharedLock(databaseUrl: string): Promise<SharedLock> {
  const client = new pg.Client({
    connectionString: databaseUrl,
    application_name: `transcript-pipeline ${hostname()} pid ${process.pid}`,
    connectionTimeoutMillis: 10_000,
  });
  await client.connect();
  try {
    const { rows } = await client.query<{ locked: boolean }>("SELECT pg_try_advisory_lock($1::bigint) AS locked", [PIPELINE_LOCK_KEY]);
    if (rows[0]?.locked !== true) {
      const holder = await client
        .query<{ application_name: string; backend_start: Date }>(
          `SELECT a.application_name, a.backend_start FROM pg_locks l JOIN pg_stat_activity a ON a.pid = l.pid
           WHERE l.locktype = 'advisory' AND l.granted AND l.classid = 0 AND l.objid = $1 AND l.database = (SELECT oid FROM pg_database WHERE datname = current_database())`,
          [PIPELINE_LOCK_KEY],
        )
        .then((result) => result.rows[0], () => undefined);
      throw new SharedLockHeldError(holder ? `${holder.application_name}, since ${holder.backend_start.toISOString()}` : undefined);
    }
  } catch (error) {
    await client.end().catch(() => undefined);
    throw error;
  }
  // A lost connection loses the lock; the run goes on under its DATA_DIR lock, and says so.
  client.on("error", (error) => process.stderr.write(`[pipeline] the PostgreSQL connection holding the run lock failed: ${error.message}\n`));
  return {
    async release() {
      await client.query("SELECT pg_advisory_unlock($1::bigint)", [PIPELINE_LOCK_KEY]).catch(() => undefined);
      await client.end().catch(() => undefined);
    },
  };
}
