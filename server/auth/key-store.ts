/**
 * API keys in SQLite (`<DATA_DIR>/keys.db`, WAL so the key CLI can write while
 * the server reads). A key that verified once is remembered (presented key →
 * record) until the database changes: every verification asks SQLite for
 * `PRAGMA data_version`, which moves whenever another connection (the key
 * CLI) commits, and this connection's own writes clear the memory. So
 * revoking or expiring a key still takes effect on the next request, and the
 * hot path is one pragma instead of a lookup plus a hash.
 *
 * The pragma runs a read transaction, and taking and releasing its WAL read
 * lock were two fcntl calls per request. A second connection keeps a read
 * transaction open on the same snapshot, so the pragma's lock is one this
 * process already holds and SQLite takes it without a system call. When the
 * pragma reports a change, or after this store's own writes, that connection
 * moves to the new snapshot (and lets checkpoints past the old one).
 * Correctness rests on the pragma alone: without the held snapshot, the
 * answers are the same and only slower.
 */
import fs from "node:fs";
import path from "node:path";
import Database from "better-sqlite3";
import { DATA_DIR_NAMES, dataDirLayout } from "../../pipeline/artifact/layout/index.js";
import type { Plan } from "../config.js";
import { generateKey, generateKeyId, hashKey, keyMatchesHash, parseKeyId } from "./api-key.js";
import type { KeyRecord } from "./key-record.js";
import { whileBusy } from "../data/while-busy.js";

/** The file name in DATA_DIR, for messages. */
export const KEYS_DB_FILE = DATA_DIR_NAMES.keys;
/** The name of the key `npm start` issues for the demo dataset (and revokes when another set is served); the keys CLI refuses it. */
export const DEMO_KEY_NAME = "demo";

const DDL = `
CREATE TABLE IF NOT EXISTS api_keys (
  key_id TEXT PRIMARY KEY,
  hash BLOB NOT NULL,
  name TEXT NOT NULL,
  plan TEXT NOT NULL CHECK (plan IN ('free', 'pro')),
  created_at TEXT NOT NULL,
  expires_at TEXT,
  revoked_at TEXT
) WITHOUT ROWID;
`;

interface KeyRow {
  key_id: string;
  hash: Buffer;
  name: string;
  plan: Plan;
  created_at: string;
  expires_at: string | null;
  revoked_at: string | null;
}

export interface CreateKeyOptions {
  plan: Plan;
  /** Default "". */
  name?: string;
  /** ISO 8601; null or undefined: never expires. */
  expiresAt?: string | null;
  /** Default: now. */
  now?: Date;
}

export interface KeyStore {
  /** Returns the plaintext key exactly once; only its hash is stored. */
  create(options: CreateKeyOptions): { key: string; record: KeyRecord };
  /** The record of a key whose hash matches, revoked or not; undefined for malformed or unknown keys. A store that cannot tell now (PostgreSQL unreachable) throws a 503 HttpError. */
  verify(key: string): KeyRecord | undefined;
  list(): KeyRecord[];
  /** false when no active key has this id. */
  revoke(keyId: string, now?: Date): boolean;
  /** Revokes every active key with this name; returns how many. */
  revokeByName(name: string, now?: Date): number;
  close(): void;
}

export interface OpenKeyStoreOptions {
  /** Directory holding keys.db (created if missing). */
  dataDir: string;
}

/** Verified keys remembered at most (the memory is cleared when full; a key then verifies against SQLite again). */
const VERIFIED_MEMORY = 10_000;

export function openKeyStore(options: OpenKeyStoreOptions): KeyStore {
  fs.mkdirSync(options.dataDir, { recursive: true });
  const db = new Database(dataDirLayout(options.dataDir).keys);
  db.pragma("busy_timeout = 5000");
  whileBusy(() => db.pragma("journal_mode = WAL"));
  db.exec(DDL);

  const byId = db.prepare<[string], KeyRow>("SELECT * FROM api_keys WHERE key_id = ?");
  const insert = db.prepare(
    "INSERT INTO api_keys (key_id, hash, name, plan, created_at, expires_at, revoked_at) VALUES (?, ?, ?, ?, ?, ?, NULL)",
  );
  const all = db.prepare<[], KeyRow>("SELECT * FROM api_keys ORDER BY created_at, key_id");
  const revokeOne = db.prepare("UPDATE api_keys SET revoked_at = ? WHERE key_id = ? AND revoked_at IS NULL");
  const revokeNamed = db.prepare("UPDATE api_keys SET revoked_at = ? WHERE name = ? AND revoked_at IS NULL");
  const dataVersion = db.prepare("PRAGMA data_version").pluck();
  const snapshot = new Database(dataDirLayout(options.dataDir).keys, { readonly: true });
  const snapshotRead = snapshot.prepare("SELECT count(*) FROM api_keys").pluck();
  const holdSnapshot = () => {
    if (snapshot.inTransaction) snapshot.exec("COMMIT");
    snapshot.exec("BEGIN");
    snapshotRead.get();
  };

  // Only keys whose hash matched are remembered, under the whole presented key.
  const verified = new Map<string, KeyRecord>();
  holdSnapshot();
  let verifiedAt = dataVersion.get() as number;
  const forget = () => verified.clear();

  return {
    create({ plan, name = "", expiresAt = null, now = new Date() }) {
      // 32-bit ids collide rarely but not never; retry on the primary key.
      for (let attempt = 0; attempt < 10; attempt++) {
        const keyId = generateKeyId();
        const key = generateKey(keyId);
        try {
          insert.run(keyId, hashKey(key), name, plan, now.toISOString(), expiresAt);
          holdSnapshot();
        } catch (error) {
          if ((error as { code?: string }).code === "SQLITE_CONSTRAINT_PRIMARYKEY") continue;
          throw error;
        }
        return { key, record: { keyId, name, plan, createdAt: now.toISOString(), expiresAt, revokedAt: null } };
      }
      throw new Error("Could not find a free key id after 10 attempts");
    },
    verify(key) {
      const version = dataVersion.get() as number;
      if (version !== verifiedAt) {
        forget();
        holdSnapshot();
        verifiedAt = dataVersion.get() as number;
      }
      const remembered = verified.get(key);
      if (remembered !== undefined) return remembered;
      const keyId = parseKeyId(key);
      if (keyId === undefined) return undefined;
      const row = byId.get(keyId);
      if (row === undefined || !keyMatchesHash(key, row.hash)) return undefined;
      const record = toRecord(row);
      if (verified.size >= VERIFIED_MEMORY) forget();
      verified.set(key, record);
      return record;
    },
    list: () => all.all().map(toRecord),
    revoke: (keyId, now = new Date()) => {
      forget();
      const revoked = revokeOne.run(now.toISOString(), keyId).changes > 0;
      holdSnapshot();
      return revoked;
    },
    revokeByName: (name, now = new Date()) => {
      forget();
      const revoked = revokeNamed.run(now.toISOString(), name).changes;
      holdSnapshot();
      return revoked;
    },
    close: () => {
      forget();
      snapshot.close();
      db.close();
    },
  };
}

function toRecord(row: KeyRow): KeyRecord {
  return {
    keyId: row.key_id,
    name: row.name,
    plan: row.plan,
    createdAt: row.created_at,
    expiresAt: row.expires_at,
    revokedAt: row.revoked_at,
  };
}
