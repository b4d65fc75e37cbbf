/**
 * The thread that owns the run's only writing connection (record-writer.ts):
 * whatever writes have arrived by the time it is free are committed in one
 * transaction, each in its own savepoint so one failing leaves the others,
 * and answered together once that commit is on disk.
 */
import Database from "better-sqlite3";
import { parentPort, receiveMessageOnPort, workerData, type MessagePort } from "node:worker_threads";
import {
  CHANNEL_CRAWLED_SQL,
  CHANNEL_FAILED_SQL,
  KNOWN_VIDEO_SQL,
  MARK_FAILED_SQL,
  MARK_FETCHED_SQL,
  PUT_RECORD_SQL,
  UPSERT_CHANNEL_SQL,
  UPSERT_VIDEO_SQL,
} from "./state-writes.js";
import type { RecordWriterWorkerData, WriteKind, WriteMessage, WriteReply } from "./record-writer.js";

type Row = Record<string, unknown>;

const port = parentPort as MessagePort;
const { path } = workerData as RecordWriterWorkerData;
const db = new Database(path);
db.pragma("busy_timeout = 10000");
db.pragma("journal_mode = WAL");
db.pragma("synchronous = FULL");
const put = db.prepare(PUT_RECORD_SQL);
const mark = db.prepare(MARK_FETCHED_SQL);
const known = db.prepare(KNOWN_VIDEO_SQL).pluck();
const upsert = db.prepare(UPSERT_VIDEO_SQL);
const failed = db.prepare(MARK_FAILED_SQL);
const channel = db.prepare(UPSERT_CHANNEL_SQL);
const crawled = db.prepare(CHANNEL_CRAWLED_SQL);
const channelFailed = db.prepare(CHANNEL_FAILED_SQL);

const apply: Record<WriteKind, (row: unknown) => unknown> = {
  record: (row) => {
    const record = row as Row & { blob: ArrayBuffer };
    put.run({ ...record, blob: Buffer.from(record.blob) });
    mark.run(record);
  },
  videos: (rows) => {
    let fresh = 0;
    for (const row of rows as Row[]) {
      if (known.get(row.videoId) === undefined) fresh++;
      upsert.run(row);
    }
    return fresh;
  },
  failure: (row) => void failed.run(row as Row),
  channel: (row) => void channel.run(row as Row),
  crawled: (row) => void crawled.run(row as Row),
  channelFailed: (row) => void channelFailed.run(row as Row),
};

type Write = Extract<WriteMessage, { id: number }>;
const message = (error: unknown) => (error instanceof Error ? error.message : String(error));
const one = db.transaction((write: Write) => apply[write.kind](write.row));
const group = db.transaction((writes: Write[]): WriteReply[] =>
  writes.map((write) => {
    try {
      return { id: write.id, value: one(write) };
    } catch (error) {
      return { id: write.id, error: message(error) };
    }
  }),
);

let closing = false;
port.on("message", (first: WriteMessage) => {
  if (first.close) closing = true;
  const writes: Write[] = first.close ? [] : [first];
  for (let next; !closing && (next = receiveMessageOnPort(port)); ) {
    const arrived = next.message as WriteMessage;
    if (arrived.close) closing = true;
    else writes.push(arrived);
  }
  if (writes.length > 0) {
    let replies: WriteReply[];
    try {
      replies = group(writes);
    } catch (error) {
      replies = writes.map((write) => ({ id: write.id, error: message(error) }));
    }
    port.postMessage(replies);
  }
  if (closing) {
    db.close();
    port.close();
  }
});
