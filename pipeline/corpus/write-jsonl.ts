/**
 * Streams corpus records to a JSONL file, one VideoRecord a line, the input
 * format of the build stage.
 *
 * Records are generated one at a time and written through a file stream that
 * is allowed to drain when its buffer is full, so memory stays flat however
 * large the slice. Records are not validated here: the generator is checked
 * against the contract's schema in the tests, and parsing every record would
 * cost more than generating it.
 */
import { once } from "node:events";
import { createWriteStream } from "node:fs";
import type { VideoRecord } from "../artifact/contract/index.js";

/** The part of a corpus this writer needs. */
export interface IndexedRecords {
  readonly videoCount: number;
  videoAt(index: number): VideoRecord;
}

export interface WriteCorpusOptions {
  /** First video index, inclusive. Default 0. */
  from?: number;
  /** Last video index, exclusive. Default `corpus.videoCount`. */
  to?: number;
  /** Called after each record with the record, e.g. to count words. Default none. */
  onRecord?: (record: VideoRecord, index: number) => void;
}

export interface WriteCorpusResult {
  records: number;
  bytes: number;
}

/** Lines are batched into chunks of about this many characters: one write per record would dominate small records. */
const CHUNK_CHARS = 1 << 20;

export async function writeCorpusJsonl(corpus: IndexedRecords, path: string, options: WriteCorpusOptions = {}): Promise<WriteCorpusResult> {
  const from = options.from ?? 0;
  const to = options.to ?? corpus.videoCount;
  if (!Number.isInteger(from) || from < 0 || from > corpus.videoCount) {
    throw new Error(`Expected the "from" option to be an integer from 0 to ${corpus.videoCount}, got ${from}`);
  }
  if (!Number.isInteger(to) || to < from || to > corpus.videoCount) {
    throw new Error(`Expected the "to" option to be an integer from "from" (${from}) to ${corpus.videoCount}, got ${to}`);
  }

  const out = createWriteStream(path);
  const failed = new Promise<never>((_, reject) => out.once("error", reject));
  // Keep the rejection handled while we are busy generating; it is awaited below.
  failed.catch(() => {});
  let bytes = 0;
  let chunk = "";
  const flush = async (): Promise<void> => {
    bytes += Buffer.byteLength(chunk);
    const ok = out.write(chunk);
    chunk = "";
    if (!ok) await Promise.race([once(out, "drain"), failed]);
  };
  try {
    for (let index = from; index < to; index++) {
      const record = corpus.videoAt(index);
      chunk += JSON.stringify(record) + "\n";
      options.onRecord?.(record, index);
      if (chunk.length >= CHUNK_CHARS) await flush();
    }
    if (chunk.length > 0) await flush();
    out.end();
    await Promise.race([once(out, "finish"), failed]);
  } catch (error) {
    out.destroy();
    throw error;
  }
  return { records: to - from, bytes };
}
