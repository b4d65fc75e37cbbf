/**
 * Whether the Redis and PostgreSQL servers the replica tests need answer on
 * this machine (127.0.0.1:6379 and :5432). Tests that need one are skipped
 * with one line saying so when it does not; `.ci/run` requires both.
 */
import { reachable } from "../../scripts/bench/reachable.js";

export const REDIS_URL = process.env.TEST_REDIS_URL ?? "redis://127.0.0.1:6379";

/** true when Redis answers; otherwise prints the skip line and returns false. */
export async function redisAvailable(what: string): Promise<boolean> {
  if (await reachable(REDIS_URL, 6379)) return true;
  console.log(`skipped: ${what} (no Redis at ${REDIS_URL}; start one with: sudo apt-get install redis-server)`);
  return false;
}

export const POSTGRES_URL = process.env.TEST_DATABASE_URL ?? "postgres://postgres@127.0.0.1:5432/test";

/** true when PostgreSQL answers; otherwise prints the skip line and returns false. */
export async function postgresAvailable(what: string): Promise<boolean> {
  if (await reachable(POSTGRES_URL, 5432)) return true;
  console.log(`skipped: ${what} (no PostgreSQL at ${new URL(POSTGRES_URL).host}; start one with: sudo apt-get install postgresql)`);
  return false;
}

/** A new, empty database `t_<random>` for one test file; `drop` removes it (and ends its connections). */
export async function freshDatabase(): Promise<{ url: string; drop(): Promise<void> }> {
  const { default: pg } = await import("pg");
  const name = `t_${Date.now().toString(36)}_${Math.random().toString(36).slice(2, 8)}`;
  const admin = new pg.Client({ connectionString: POSTGRES_URL });
  await admin.connect();
  try {
    await admin.query(`CREATE DATABASE ${name}`);
  } finally {
    await admin.end();
  }
  const url = new URL(POSTGRES_URL);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    async drop() {
      const client = new pg.Client({ connectionString: POSTGRES_URL });
      await client.connect();
      try {
        await client.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      } finally {
        await client.end();
      }
    },
  };
}
