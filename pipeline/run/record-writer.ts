/**
 * Every write of a run, off the event loop and through one connection. With
 * synchronous=FULL every commit waits for fsync (3.3 ms measured on this
 * machine's disk); done on the main thread that would stall every fetch in
 * flight, and a second writing connection on the main thread would stall it
 * too, in SQLite's busy wait whenever this one holds the lock. So a worker
 * thread owns the only writing connection and applies fetched records,
 * crawled pages and failures as they arrive.
 *
 * Group commit: whatever has arrived by the time the thread is free is
 * committed in one transaction (each operation in its own savepoint, so one
 * failing leaves the others), and every caller's promise resolves only once
 * that commit is on disk. Under load that is one fsync for many records
 * instead of one each; a record still counts as fetched only when durable.
 */
import type { Worker } from "node:worker_threads";
import { sqliteWorker } from "../artifact/sqlite-worker.js";
import type { VideoRecord } from "../artifact/contract.js";
import {
  CHANNEL_CRAWLED_SQL,
  CHANNEL_FAILED_SQL,
  failureRow,
  KNOWN_VIDEO_SQL,
  MARK_FAILED_SQL,
  MARK_FETCHED_SQL,
  PUT_RECORD_SQL,
  recordRow,
  UPSERT_CHANNEL_SQL,
  UPSERT_VIDEO_SQL,
  videoRows,
  type CrawledVideo,
} from "./open-state.js";

// Plain CommonJS evaluated in the worker, so it runs the same under tsx, vitest and node.
const WORKER_SOURCE = `
const { parentPort, workerData, receiveMessageOnPort } = require("node:worker_threads");
const Database = require(workerData.driver);
const db = new Database(workerData.path);
db.pragma("busy_timeout = 10000");
db.pragma("journal_mode = WAL");
db.pragma("synchronous = FULL");
const sql = workerData.sql;
const put = db.prepare(sql.put);
const mark = db.prepare(sql.mark);
const known = db.prepare(sql.known).pluck();
const upsert = db.prepare(sql.upsert);
const failed = db.prepare(sql.failed);
const channel = db.prepare(sql.channel);
const crawled = db.prepare(sql.crawled);
const channelFailed = db.prepare(sql.channelFailed);
const apply = {
  record: (row) => { put.run({ ...row, blob: Buffer.from(row.blob) }); mark.run(row); },
  videos: (rows) => {
    let fresh = 0;
    for (const row of rows) {
      if (known.get(row.videoId) === undefined) fresh++;
      upsert.run(row);
    }
    return fresh;
  },
  failure: (row) => { failed.run(row); },
  channel: (row) => { channel.run(row); },
  crawled: (row) => { crawled.run(row); },
  channelFailed: (row) => { channelFailed.run(row); },
};
const one = db.transaction((message) => apply[message.kind](message.row));
const group = db.transaction((messages) => messages.map((message) => {
  try {
    return { id: message.id, value: one(message) };
  } catch (error) {
    return { id: message.id, error: String((error && error.message) || error) };
  }
}));
let closing = false;
parentPort.on("message", (first) => {
  if (first.close) closing = true;
  const messages = first.close ? [] : [first];
  for (let next; !closing && (next = receiveMessageOnPort(parentPort)); ) {
    if (next.message.close) closing = true;
    else messages.push(next.message);
  }
  if (messages.length > 0) {
    let replies;
    try {
      replies = group(messages);
    } catch (error) {
      replies = messages.map((message) => ({ id: message.id, error: String((error && error.message) || error) }));
    }
    parentPort.postMessage(replies);
  }
  if (closing) { db.close(); parentPort.close(); }
});
`;

interface Waiter {
  resolve: (value: unknown) => void;
  reject: (error: Error) => void;
}

/** The crawl's writes (a dry run has none). */
export interface CrawlWrites {
  saveChannel(channel: { channelId: string; input: string; title?: string; handle?: string }, now: Date): Promise<void>;
  saveVideos(videos: readonly CrawledVideo[], now: Date): Promise<number>;
  saveChannelCrawled(channelId: string, videoCount: number, now: Date): Promise<void>;
  saveChannelFailed(channelId: string, code: string): Promise<void>;
}

export class RecordWriter implements CrawlWrites {
  readonly #worker: Worker;
  readonly #pending = new Map<number, Waiter>();
  #nextId = 0;
  /** Records being compressed, not yet sent: close() waits for them too. */
  #compressing = 0;
  #failure: Error | undefined;

  constructor(statePath: string) {
    this.#worker = sqliteWorker(WORKER_SOURCE, statePath, {
      sql: {
        put: PUT_RECORD_SQL,
        mark: MARK_FETCHED_SQL,
        known: KNOWN_VIDEO_SQL,
        upsert: UPSERT_VIDEO_SQL,
        failed: MARK_FAILED_SQL,
        channel: UPSERT_CHANNEL_SQL,
        crawled: CHANNEL_CRAWLED_SQL,
        channelFailed: CHANNEL_FAILED_SQL,
      },
    });
    this.#worker.on("message", (replies: { id: number; value?: unknown; error?: string }[]) => {
      for (const reply of replies) {
        const waiter = this.#pending.get(reply.id);
        this.#pending.delete(reply.id);
        if (reply.error === undefined) waiter?.resolve(reply.value);
        else waiter?.reject(new Error(`Writing to the pipeline state failed: ${reply.error}`));
      }
    });
    this.#worker.on("error", (error) => this.#fail(error));
    this.#worker.on("exit", (code) => this.#fail(new Error(`The state writer thread stopped (exit ${code})`)));
  }

  /** Resolves when the record is committed and synced. Compression happens here (off the event loop), the commit in the worker. */
  async save(record: VideoRecord, now: Date): Promise<void> {
    this.#compressing++;
    let row: Awaited<ReturnType<typeof recordRow>>;
    try {
      row = await recordRow(record, now);
    } finally {
      this.#compressing--;
    }
    const blob = row.blob.buffer.slice(row.blob.byteOffset, row.blob.byteOffset + row.blob.byteLength);
    return this.#send<void>("record", { ...row, blob }, [blob]);
  }

  /** A crawled page of videos, in one savepoint; resolves with how many were new, once committed. */
  saveVideos(videos: readonly CrawledVideo[], now: Date): Promise<number> {
    return this.#send<number>("videos", videoRows(videos, now));
  }

  /** A failed fetch: `failed` (permanent, retried after an age) or still `pending` (a later run retries). */
  saveFailure(videoId: string, failure: { permanent: boolean; code: string; message: string }, now: Date): Promise<void> {
    return this.#send<void>("failure", failureRow(videoId, failure, now));
  }

  saveChannel(channel: { channelId: string; input: string; title?: string; handle?: string }, now: Date): Promise<void> {
    const row = { channelId: channel.channelId, input: channel.input, title: channel.title ?? null, handle: channel.handle ?? null, now: now.toISOString() };
    return this.#send<void>("channel", row);
  }

  /** A complete crawl of the channel's Videos tab. */
  saveChannelCrawled(channelId: string, videoCount: number, now: Date): Promise<void> {
    return this.#send<void>("crawled", { channelId, videoCount, now: now.toISOString() });
  }

  /** The YouTubeError code of a failed crawl. */
  saveChannelFailed(channelId: string, code: string): Promise<void> {
    return this.#send<void>("channelFailed", { channelId, code });
  }

  /** Waits for every write in flight, then stops the thread. */
  async close(): Promise<void> {
    while ((this.#pending.size > 0 || this.#compressing > 0) && !this.#failure) await new Promise((resolve) => setTimeout(resolve, 5));
    if (this.#failure) return;
    const exited = new Promise((resolve) => this.#worker.once("exit", resolve));
    this.#worker.postMessage({ close: true });
    await exited;
  }

  #send<T>(kind: "record" | "videos" | "failure" | "channel" | "crawled" | "channelFailed", row: unknown, transfer: ArrayBuffer[] = []): Promise<T> {
    if (this.#failure) return Promise.reject(this.#failure);
    const id = this.#nextId++;
    return new Promise<T>((resolve, reject) => {
      this.#pending.set(id, { resolve: resolve as (value: unknown) => void, reject });
      this.#worker.postMessage({ id, kind, row }, transfer);
    });
  }

  #fail(error: Error): void {
    this.#failure ??= error;
    for (const waiter of this.#pending.values()) waiter.reject(this.#failure);
    this.#pending.clear();
  }
}
