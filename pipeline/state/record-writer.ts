/**
 * Every write of a run, off the event loop and through one connection. With
 * synchronous=FULL every commit waits for fsync (milliseconds on a disk);
 * done on the main thread that would stall every fetch in
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
import { tsWorker } from "../artifact/worker-thread/index.js";
import type { VideoRecord } from "../artifact/contract/index.js";
import { failureRow, recordRow, videoRows, type CrawledVideo } from "./state-writes.js";

/** What the writing thread (record-writer-worker.ts) is given: the state database's file. */
export interface RecordWriterWorkerData {
  path: string;
}

/** The kinds of write, each applied by its own statement(s) in the writing thread. */
export type WriteKind = "record" | "videos" | "failure" | "channel" | "crawled" | "channelFailed";

/**
 * A write sent to the writing thread: `row` holds the named parameters of
 * its statement (for `videos`, a list of them; for `record`, its blob as an
 * ArrayBuffer). `close` ends the thread once what has arrived is written.
 */
export type WriteMessage = { id: number; kind: WriteKind; row: unknown; close?: undefined } | { close: true };

/** The writing thread's answer to one write. */
export interface WriteReply {
  id: number;
  value?: unknown;
  error?: string;
}

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
    const data: RecordWriterWorkerData = { path: statePath };
    this.#worker = tsWorker(new URL("./record-writer-worker.ts", import.meta.url), data);
    this.#worker.on("message", (replies: WriteReply[]) => {
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
    this.#worker.postMessage({ close: true } satisfies WriteMessage);
    await exited;
  }

  #send<T>(kind: WriteKind, row: unknown, transfer: ArrayBuffer[] = []): Promise<T> {
    if (this.#failure) return Promise.reject(this.#failure);
    const id = this.#nextId++;
    return new Promise<T>((resolve, reject) => {
      this.#pending.set(id, { resolve: resolve as (value: unknown) => void, reject });
      this.#worker.postMessage({ id, kind, row } satisfies WriteMessage, transfer);
    });
  }

  #fail(error: Error): void {
    this.#failure ??= error;
    for (const waiter of this.#pending.values()) waiter.reject(this.#failure);
    this.#pending.clear();
  }
}
