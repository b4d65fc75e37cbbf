/**
 * Durable commits off the event loop. With synchronous=FULL every commit
 * waits for fsync (3.3 ms measured on this machine's disk); done on the main
 * thread that would stall every fetch in flight, 500,000 times. A worker
 * thread owns a second connection and commits each record in its own
 * transaction; `save` resolves only once the commit is on disk, and only
 * then is the video counted as fetched.
 */
import { createRequire } from "node:module";
import { Worker } from "node:worker_threads";
import type { VideoRecord } from "../contract.js";
import { MARK_FETCHED_SQL, PUT_RECORD_SQL, recordRow } from "./open-state.js";

// Plain CommonJS evaluated in the worker, so it runs the same under tsx, vitest and node.
const WORKER_SOURCE = `
const { parentPort, workerData } = require("node:worker_threads");
const Database = require(workerData.driver);
const db = new Database(workerData.path);
db.pragma("busy_timeout = 10000");
db.pragma("journal_mode = WAL");
db.pragma("synchronous = FULL");
const put = db.prepare(workerData.putSql);
const mark = db.prepare(workerData.markSql);
const save = db.transaction((row) => { put.run(row); mark.run(row); });
parentPort.on("message", (message) => {
  if (message.close) { db.close(); parentPort.close(); return; }
  try {
    save({ ...message.row, blob: Buffer.from(message.row.blob) });
    parentPort.postMessage({ id: message.id });
  } catch (error) {
    parentPort.postMessage({ id: message.id, error: String((error && error.message) || error) });
  }
});
`;

export class RecordWriter {
  readonly #worker: Worker;
  readonly #pending = new Map<number, { resolve: () => void; reject: (error: Error) => void }>();
  #nextId = 0;
  #failure: Error | undefined;

  constructor(statePath: string) {
    this.#worker = new Worker(WORKER_SOURCE, {
      eval: true,
      workerData: { path: statePath, driver: createRequire(import.meta.url).resolve("better-sqlite3"), putSql: PUT_RECORD_SQL, markSql: MARK_FETCHED_SQL },
    });
    this.#worker.on("message", (message: { id: number; error?: string }) => {
      const waiter = this.#pending.get(message.id);
      this.#pending.delete(message.id);
      if (message.error === undefined) waiter?.resolve();
      else waiter?.reject(new Error(`Saving a record to the state failed: ${message.error}`));
    });
    this.#worker.on("error", (error) => this.#fail(error));
    this.#worker.on("exit", (code) => this.#fail(new Error(`The state writer thread stopped (exit ${code})`)));
  }

  /** Resolves when the record is committed and synced. Compression happens here, the commit in the worker. */
  save(record: VideoRecord, now: Date): Promise<void> {
    if (this.#failure) return Promise.reject(this.#failure);
    const row = recordRow(record, now);
    const id = this.#nextId++;
    return new Promise((resolve, reject) => {
      this.#pending.set(id, { resolve, reject });
      const blob = row.blob.buffer.slice(row.blob.byteOffset, row.blob.byteOffset + row.blob.byteLength);
      this.#worker.postMessage({ id, row: { ...row, blob } }, [blob]);
    });
  }

  /** Waits for every save in flight, then stops the thread. */
  async close(): Promise<void> {
    while (this.#pending.size > 0 && !this.#failure) await new Promise((resolve) => setTimeout(resolve, 5));
    if (this.#failure) return;
    const exited = new Promise((resolve) => this.#worker.once("exit", resolve));
    this.#worker.postMessage({ close: true });
    await exited;
  }

  #fail(error: Error): void {
    this.#failure ??= error;
    for (const waiter of this.#pending.values()) waiter.reject(this.#failure);
    this.#pending.clear();
  }
}
