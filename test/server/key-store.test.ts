/**
 * The key store against a second connection to keys.db, as the keys CLI is:
 * every change it commits shows on the very next verification, however many
 * there are, and the snapshot the store holds to make its check cheap never
 * keeps a checkpoint from copying the WAL back into the database.
 */
import Database from "better-sqlite3";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, test } from "vitest";
import { KEYS_DB_FILE, openKeyStore, type KeyStore } from "../../server/auth/key-store.js";

let dataDir: string;
let store: KeyStore;

beforeEach(() => {
  dataDir = mkdtempSync(path.join(tmpdir(), "key-store-"));
  store = openKeyStore({ dataDir });
});
afterEach(() => {
  store.close();
  rmSync(dataDir, { recursive: true, force: true });
});

function other<T>(work: (db: Database.Database) => T): T {
  const db = new Database(path.join(dataDir, KEYS_DB_FILE));
  try {
    return work(db);
  } finally {
    db.close();
  }
}

describe("key verification beside another connection", () => {
  test("each change another connection commits shows on the next verification, change after change", () => {
    const { key, record } = store.create({ plan: "free" });
    for (let round = 0; round < 5; round++) {
      expect(store.verify(key)?.plan).toBe(round % 2 === 0 ? "free" : "pro");
      other((db) => db.prepare("UPDATE api_keys SET plan = ? WHERE key_id = ?").run(round % 2 === 0 ? "pro" : "free", record.keyId));
    }
    other((db) => db.prepare("UPDATE api_keys SET revoked_at = ? WHERE key_id = ?").run(new Date().toISOString(), record.keyId));
    expect(store.verify(key)?.revokedAt).not.toBeNull();
  });

  test("a key created by another connection verifies at once, and one it deletes stops verifying", () => {
    const cli = openKeyStore({ dataDir });
    const { key, record } = cli.create({ plan: "pro", name: "from-cli" });
    cli.close();
    expect(store.verify(key)?.keyId).toBe(record.keyId);
    other((db) => db.prepare("DELETE FROM api_keys WHERE key_id = ?").run(record.keyId));
    expect(store.verify(key)).toBeUndefined();
  });

  test("after the store has seen a change, a passive checkpoint copies every WAL frame back: the held snapshot moved on", () => {
    const { key, record } = store.create({ plan: "free" });
    for (let i = 0; i < 3; i++) {
      other((db) => db.prepare("UPDATE api_keys SET name = ? WHERE key_id = ?").run(`name-${i}`, record.keyId));
      expect(store.verify(key)?.name).toBe(`name-${i}`);
      const [result] = other((db) => db.pragma("wal_checkpoint(PASSIVE)")) as { busy: number; log: number; checkpointed: number }[];
      expect(result!.log).toBeGreaterThan(0);
      expect(result!.checkpointed).toBe(result!.log);
    }
  });

  test("the store's own writes move the held snapshot too", () => {
    const { record } = store.create({ plan: "free", name: "own" });
    store.revoke(record.keyId);
    const [result] = other((db) => db.pragma("wal_checkpoint(PASSIVE)")) as { log: number; checkpointed: number }[];
    expect(result!.checkpointed).toBe(result!.log);
  });
});
