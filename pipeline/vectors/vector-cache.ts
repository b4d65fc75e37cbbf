/**
 * Vectors a build embedded that no published set holds yet
 * (`DATA_DIR/pipeline/vector-cache.db`), by embedder and chunk hash. Each
 * batch is committed as it is embedded, so a build killed mid-step (even by
 * SIGKILL, which removes nothing) finds them when it runs again and embeds
 * only the rest. A finished build empties it: its set holds them from then on.
 */
import Database from "better-sqlite3";
import { mkdirSync } from "node:fs";
import { dirname } from "node:path";

export class VectorCache {
  readonly #db: Database.Database;
  readonly #get: Database.Statement<[string, Buffer], Buffer>;
  readonly #put: Database.Statement<[string, Buffer, Buffer]>;

  constructor(path: string) {
    mkdirSync(dirname(path), { recursive: true });
    this.#db = new Database(path);
    this.#db.pragma("journal_mode = WAL");
    this.#db.pragma("synchronous = NORMAL");
    this.#db.exec("CREATE TABLE IF NOT EXISTS vectors (embedder TEXT NOT NULL, hash BLOB NOT NULL, vector BLOB NOT NULL, PRIMARY KEY (embedder, hash)) WITHOUT ROWID");
    this.#get = this.#db.prepare<[string, Buffer], Buffer>("SELECT vector FROM vectors WHERE embedder = ? AND hash = ?").pluck();
    this.#put = this.#db.prepare("INSERT OR REPLACE INTO vectors (embedder, hash, vector) VALUES (?, ?, ?)");
  }

  get(embedder: string, hash: Buffer): Buffer | undefined {
    return this.#get.get(embedder, hash);
  }

  /** Stores one batch in one transaction: on disk when this returns. */
  putBatch(embedder: string, entries: readonly { hash: Buffer; vector: Buffer }[]): void {
    this.#db.transaction(() => {
      for (const entry of entries) this.#put.run(embedder, entry.hash, entry.vector);
    })();
  }

  count(): number {
    return this.#db.prepare("SELECT count(*) FROM vectors").pluck().get() as number;
  }

  clear(): void {
    this.#db.exec("DELETE FROM vectors");
  }

  close(): void {
    this.#db.close();
  }
}
