/**
 * API keys in PostgreSQL (DATABASE_URL), for replicas that must agree on
 * them: the table, and the writes of `npm run keys`. Each write commits with
 * a NOTIFY on `KEYS_CHANNEL`, so every replica's copy (pg-key-store.ts)
 * reloads within moments; only sha256 hashes are stored, as in keys.db.
 */
import type pg from "pg";
import type { Plan } from "../config.js";
import { generateKey, generateKeyId, hashKey } from "./api-key.js";
import type { KeyRecord } from "./key-record.js";

export const KEYS_CHANNEL = "transcript_service_keys";

export const PG_KEYS_DDL = `
CREATE TABLE IF NOT EXISTS api_keys (
  key_id TEXT PRIMARY KEY,
  hash BYTEA NOT NULL,
  name TEXT NOT NULL,
  plan TEXT NOT NULL CHECK (plan IN ('free', 'pro')),
  created_at TIMESTAMPTZ NOT NULL,
  expires_at TIMESTAMPTZ,
  revoked_at TIMESTAMPTZ
)`;

export interface PgKeyRow {
  key_id: string;
  hash: Buffer;
  name: string;
  plan: Plan;
  created_at: Date;
  expires_at: Date | null;
  revoked_at: Date | null;
}

type Queryable = Pick<pg.Client, "query">;

export async function ensurePgKeys(db: Queryable): Promise<void> {
  // Two processes starting at once could both run CREATE TABLE IF NOT EXISTS and one fail; the lock makes it one.
  await db.query("BEGIN");
  try {
    await db.query("SELECT pg_advisory_xact_lock(hashtext('transcript_service_keys_ddl'))");
    await db.query(PG_KEYS_DDL);
    await db.query("COMMIT");
  } catch (error) {
    await db.query("ROLLBACK").catch(() => undefined);
    throw error;
  }
}

export async function allPgKeys(db: Queryable): Promise<PgKeyRow[]> {
  return (await db.query<PgKeyRow>("SELECT * FROM api_keys ORDER BY created_at, key_id")).rows;
}

export async function createPgKey(
  db: Queryable,
  options: { plan: Plan; name?: string; expiresAt?: string | null; now?: Date },
): Promise<{ key: string; record: KeyRecord }> {
  const { plan, name = "", expiresAt = null, now = new Date() } = options;
  for (let attempt = 0; attempt < 10; attempt++) {
    const keyId = generateKeyId();
    const key = generateKey(keyId);
    const inserted = await db.query(
      `WITH added AS (
         INSERT INTO api_keys (key_id, hash, name, plan, created_at, expires_at) VALUES ($1, $2, $3, $4, $5, $6)
         ON CONFLICT (key_id) DO NOTHING RETURNING key_id)
       SELECT pg_notify('${KEYS_CHANNEL}', key_id) FROM added`,
      [keyId, hashKey(key), name, plan, now.toISOString(), expiresAt],
    );
    if (inserted.rowCount === 0) continue; // 32-bit ids collide rarely but not never
    return { key, record: { keyId, name, plan, createdAt: now.toISOString(), expiresAt, revokedAt: null } };
  }
  throw new Error("Could not find a free key id after 10 attempts");
}

/** false when no active key has this id. */
export async function revokePgKey(db: Queryable, keyId: string, now = new Date()): Promise<boolean> {
  const result = await db.query(
    `WITH revoked AS (UPDATE api_keys SET revoked_at = $1 WHERE key_id = $2 AND revoked_at IS NULL RETURNING key_id)
     SELECT pg_notify('${KEYS_CHANNEL}', key_id) FROM revoked`,
    [now.toISOString(), keyId],
  );
  return (result.rowCount ?? 0) > 0;
}

export function pgRowToRecord(row: PgKeyRow): KeyRecord {
  return {
    keyId: row.key_id,
    name: row.name,
    plan: row.plan,
    createdAt: row.created_at.toISOString(),
    expiresAt: row.expires_at?.toISOString() ?? null,
    revokedAt: row.revoked_at?.toISOString() ?? null,
  };
}
