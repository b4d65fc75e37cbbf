/**
 * Search's memory for one artifact set: what it holds (the full-text index's
 * own connection, the most viewed texts, the word bitmaps), the text
 * read-ahead threads, and `warm()`, which fills them at start. Every part is optional
 * and only makes search faster: the answers are the same without it.
 */
import type Database from "better-sqlite3";
import { HotTranscripts, type HotWarmth } from "./hot-transcripts.js";
import { longestLists, openIndexConnection, setIndexCacheBytes, warmIndex, warmLists, type IndexWarmth, type ListWarmth } from "./index-memory.js";
import { TextPrefetch } from "./text-prefetch.js";
import { StoredTermCounts, type StoredCountsWarmth } from "./stored-term-counts.js";
import { WordBitmaps, type BitmapWarmth } from "../match/word-bitmaps.js";

/** Each helper's share of memory or threads (memory/budget.ts makes them from one budget). */
export interface SearchMemoryOptions {
  /** Memory for the full-text index (index-memory.ts); 0: full-text queries share the main connection. */
  indexBytes?: number;
  /** Memory for the phrase-pair index's longest lists, in the index's page cache (needs `indexBytes`). */
  pairBytes?: number;
  /** Memory for the most viewed transcripts' text (hot-transcripts.ts). */
  hotTextBytes?: number;
  /** Memory for the term counts of the first of those texts (term-vectors.ts). */
  termVectorBytes?: number;
  /** Memory for the build's term counts of every transcript, from rank 1 down (stored-term-counts.ts). */
  termCountBytes?: number;
  /** Read the word bitmaps into memory (word-bitmaps.ts; default true). */
  wordBitmaps?: boolean;
  /** Threads reading ahead a query's texts (text-prefetch.ts; default 0: none). */
  readThreads?: number;
  /** Touch the videos table in `warm()` (default true). */
  touchVideos?: boolean;
}

/** What `warm()` read into memory; a part is undefined when its memory is 0. */
export interface MemoryWarmth {
  index?: IndexWarmth;
  texts?: HotWarmth;
  pairs?: ListWarmth;
  counts?: StoredCountsWarmth;
  /** The word bitmaps read into memory (word-bitmaps.ts), unless `wordBitmaps` is false. */
  bitmaps?: BitmapWarmth;
}

/**
 * The pair lists held in memory are those of at least this many pages: a
 * list that long has a doclist index, and a phrase query seeks in it once
 * for each transcript holding the phrase's other pairs.
 */
const PAIR_LIST_MIN_PAGES = 4;

export class SearchMemory {
  /** The connection holding the full-text index in memory, when there is one. */
  readonly index: Database.Database | undefined;
  readonly hot: HotTranscripts | undefined;
  readonly counts: StoredTermCounts | undefined;
  readonly prefetch: TextPrefetch | undefined;
  readonly bitmaps = new WordBitmaps();
  readonly #options: SearchMemoryOptions;
  #pairBytes = 0;

  /** Opens what holds memory for the database `file`; nothing is read until `warm()`. */
  constructor(file: string, options: SearchMemoryOptions) {
    this.#options = options;
    const indexBytes = options.indexBytes ?? 0;
    this.index = indexBytes > 0 ? openIndexConnection(file, indexBytes + (options.pairBytes ?? 0)) : undefined;
    this.hot = (options.hotTextBytes ?? 0) > 0 ? new HotTranscripts() : undefined;
    this.counts = (options.termCountBytes ?? 0) > 0 ? new StoredTermCounts() : undefined;
    try {
      this.prefetch = (options.readThreads ?? 0) > 0 ? new TextPrefetch(file, options.readThreads!) : undefined;
    } catch (error) {
      this.index?.close();
      throw error;
    }
  }

  /** The phrase-pair index is searched (it is held in memory only then). */
  usePairs(used: boolean): void {
    this.#pairBytes = this.index && used ? (this.#options.pairBytes ?? 0) : 0;
  }

  /**
   * Reads into memory the word bitmaps, the full-text index, then the
   * longest lists of the phrase-pair index, then the build's term counts,
   * then the text of the most viewed transcripts and the term counts of the
   * first of them that the build's do not hold, then touches the
   * videos table, a slice per turn of the event loop, and waits for the text
   * read-ahead threads to start.
   * Searches answer meanwhile, reading from storage what is not in memory
   * yet, with the same results.
   */
  async warm(db: Database.Database): Promise<MemoryWarmth> {
    const warmth: MemoryWarmth = {};
    const index = this.index;
    const pairLists = index && this.#pairBytes > 0 ? longestLists(index, "phrase_pairs", PAIR_LIST_MIN_PAGES) : [];
    if (this.#options.wordBitmaps ?? true) warmth.bitmaps = await this.bitmaps.load(db);
    if (index) warmth.index = await warmIndex(index, { budgetBytes: this.#options.indexBytes ?? 0 });
    if (index && this.#pairBytes > 0) warmth.pairs = await warmLists(index, "phrase_pairs", pairLists, { budgetBytes: this.#pairBytes });
    // The texts' share holds their text as it would without timings. Their timings go first into what the
    // index and its pair lists left of their shares, and the index's page cache is capped lower by as much.
    const cacheBytes = (this.#options.indexBytes ?? 0) + (this.#options.pairBytes ?? 0);
    const unspent = index ? Math.max(0, cacheBytes - (warmth.index?.bytes ?? 0) - (warmth.pairs?.bytes ?? 0)) : 0;
    if (this.counts && db.open) warmth.counts = await this.counts.load(db, this.#options.termCountBytes ?? 0);
    if (this.hot && db.open) {
      const counts = this.counts;
      warmth.texts = await this.hot.load(db, {
        budgetBytes: this.#options.hotTextBytes ?? 0,
        timingsBytes: unspent,
        vectorBytes: this.#options.termVectorBytes ?? 0,
        ...(counts && { counted: (rank: number) => counts.has(rank) }),
      });
      if (index?.open && warmth.texts.timingsBytes > 0) setIndexCacheBytes(index, cacheBytes - warmth.texts.timingsBytes);
    }
    if ((index || this.hot) && (this.#options.touchVideos ?? true)) await touchVideos(db);
    await this.prefetch?.ready();
    return warmth;
  }

  close(): void {
    this.prefetch?.close();
    if (this.index?.open) this.index.close();
  }
}

/**
 * Reads every page of the videos table and its video-id index, a slice
 * per turn of the event loop, so a query's first look-up of a row finds its
 * page in memory: mapped, where it lies in the memory-mapped start of the
 * file (once touched it stays mapped, which a reclaim of idle page cache
 * leaves alone), else in the operating system's cache. The build writes
 * the videos among the transcripts, after the full-text index, so most of
 * its pages lie past the mapped start.
 */
async function touchVideos(db: Database.Database, sliceRows = 20_000): Promise<void> {
  const slice = db.prepare("SELECT count(transcript), max(id) FROM videos WHERE id > ? AND id <= ?").raw();
  const last = db.prepare("SELECT coalesce(max(id), 0) FROM videos").pluck().get() as number;
  for (let after = 0; after < last; after += sliceRows) {
    await new Promise<void>((resolve) => setImmediate(resolve));
    if (!db.open) return;
    slice.get(after, after + sliceRows);
  }
  if (db.open) db.prepare("SELECT count(video_id) FROM videos WHERE video_id > ''").pluck().get();
}
