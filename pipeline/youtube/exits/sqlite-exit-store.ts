/**
 * Exit state shared by the processes of one host: a small SQLite file in
 * DATA_DIR (`exits.db`) that the server's live fetcher, its workers and the
 * pipeline all open. Whichever opens it first creates it (the schema is made
 * with IF NOT EXISTS, so two first openers agree); it holds nothing that is
 * not rebuilt by use, so a missing file is simply a fresh start.
 *
 * Each claim and settle is one `BEGIN IMMEDIATE` transaction that reads the
 * exit's record, applies exit-rules.ts and writes it back, so two processes
 * never both take the last pacing slot or both miss a block. In WAL mode
 * readers never wait; a writer waits at most the busy timeout (1 s) for another.
 * What would change nothing is only read: a claim refused, a claim on an
 * unpaced exit that is neither resting nor due a probe (its start time paces
 * nothing), and an answer that ends no row of blocks or failures. So the
 * common request of an unpaced run costs two reads, not two writes.
 */
import Database from "better-sqlite3";
import { spacingMs, type ExitPolicy } from "./exit-policy.js";
import { claimOn, settleOn } from "./exit-rules.js";
import { emptyRecord, type ClaimResult, type ExitOutcome, type ExitRecord, type ExitStateStore } from "./exit-state-store.js";

/** Records untouched this long are dropped at open: every rest they could describe is long over. */
const FORGET_AFTER_MS = 7 * 86_400_000;

const SCHEMA = `
CREATE TABLE IF NOT EXISTS exit_state (
  key TEXT PRIMARY KEY,
  record TEXT NOT NULL,
  updated_at INTEGER NOT NULL
) STRICT;
`;

export class SqliteExitStore implements ExitStateStore {
  readonly path: string;
  readonly #db: Database.Database;
  readonly #select: Database.Statement<[string], { record: string }>;
  readonly #upsert: Database.Statement<[string, string, number]>;
  readonly #claim: (key: string, now: number, policy: ExitPolicy) => ClaimResult;
  readonly #settle: (key: string, sentAt: number, now: number, outcome: ExitOutcome, policy: ExitPolicy, random: number) => ExitRecord;

  /** Opens (creating when missing) the store at `path`; throws when the file cannot be opened for writing or is not a database. */
  static open(path: string, options: { now?: number } = {}): SqliteExitStore {
    const db = new Database(path);
    try {
      // Every transaction here is a read and a write of one row: a lock held longer than this is a fault, and the caller falls back.
      db.pragma("busy_timeout = 1000");
      db.pragma("journal_mode = WAL");
      // Exit state is rebuilt by use: a commit lost with the machine costs nothing, so no sync per commit.
      db.pragma("synchronous = NORMAL");
      db.exec(SCHEMA);
      db.prepare("DELETE FROM exit_state WHERE updated_at < ?").run((options.now ?? Date.now()) - FORGET_AFTER_MS);
      return new SqliteExitStore(path, db);
    } catch (error) {
      db.close();
      throw error;
    }
  }

  private constructor(path: string, db: Database.Database) {
    this.path = path;
    this.#db = db;
    this.#select = db.prepare("SELECT record FROM exit_state WHERE key = ?");
    this.#upsert = db.prepare(
      "INSERT INTO exit_state (key, record, updated_at) VALUES (?, ?, ?) ON CONFLICT (key) DO UPDATE SET record = excluded.record, updated_at = excluded.updated_at",
    );
    const claim = db.transaction((key: string, now: number, policy: ExitPolicy): ClaimResult => {
      const record = this.#get(key);
      const result = claimOn(record, now, policy);
      if (result.granted) this.#upsert.run(key, JSON.stringify(record), now);
      return { ...result, record };
    });
    const settle = db.transaction((key: string, sentAt: number, now: number, outcome: ExitOutcome, policy: ExitPolicy, random: number): ExitRecord => {
      const record = this.#get(key);
      const before = JSON.stringify(record);
      settleOn(record, sentAt, now, outcome, policy, random);
      const after = JSON.stringify(record);
      if (after !== before) this.#upsert.run(key, after, now);
      return record;
    });
    // IMMEDIATE: the write lock is taken before the read, so no other process changes the record in between.
    this.#claim = (...args) => claim.immediate(...args);
    this.#settle = (...args) => settle.immediate(...args);
  }

  #get(key: string): ExitRecord {
    const row = this.#select.get(key);
    return row === undefined ? emptyRecord() : { ...emptyRecord(), ...(JSON.parse(row.record) as Partial<ExitRecord>) };
  }

  async claim(key: string, now: number, policy: ExitPolicy): Promise<ClaimResult> {
    const record = this.#get(key);
    const seen = { ...record };
    const result = claimOn(record, now, policy);
    if (!result.granted) return { ...result, record: seen };
    if (!result.probe && spacingMs(policy) === 0) return { ...result, record };
    return this.#claim(key, now, policy);
  }

  async settle(key: string, sentAt: number, now: number, outcome: ExitOutcome, policy: ExitPolicy, random: number): Promise<ExitRecord> {
    const record = this.#get(key);
    const before = JSON.stringify(record);
    settleOn(record, sentAt, now, outcome, policy, random);
    if (JSON.stringify(record) === before) return record;
    return this.#settle(key, sentAt, now, outcome, policy, random);
  }

  async read(key: string): Promise<ExitRecord> {
    return this.#get(key);
  }

  close(): void {
    this.#db.close();
  }
}
