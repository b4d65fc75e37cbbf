/**
 * The text of the most viewed transcripts, and the timings that place a
 * search hit's match in time, held in process memory.
 *
 * Search ranks the first matches of a query in popularity order, so the
 * transcripts it reads to count terms and cut snippets are mostly the most
 * viewed ones (docs/search-memory.md has the shares measured). Read from the
 * database, each is a page (or, in a set built with small pages, a chain of
 * them) that SQLite reads from the operating system's page cache; where that
 * cache is reclaimed from under an idle process, those reads go to disk.
 * Here they are Buffers, filled at start from rank 1 down until the
 * budget is spent; every other transcript is still read from the database.
 * The rows are what the database holds, so answers do not change.
 */
import type Database from "better-sqlite3";
import type { Warmth, WarmOptions } from "./index-memory.js";
import { compactTimings } from "../snippet/segment-index.js";
import { type TermVector, TermVectors } from "../../../pipeline/artifact/search-index/index.js";

export interface HotRow {
  words: number;
  views: number;
  /** The transcript's text (`script`) as UTF-8. */
  bytes: Buffer;
  /** Its segments' starts and lengths (snippet/segment-index.ts compactTimings), for the matched moment of a search hit. */
  starts: Buffer;
  /** Its terms' counts (term-vectors.ts), for the rows that have them. */
  terms?: TermVector;
}

export interface HotWarmth extends Warmth {
  transcripts: number;
  /** Of those, how many have their term counts held (term-vectors.ts), in `vectorBytes` bytes beside `bytes`. */
  vectors: number;
  vectorBytes: number;
  /** Of `bytes`, what the timings took of `timingsBytes` (HotOptions). */
  timingsBytes: number;
}

export interface HotOptions extends WarmOptions {
  /**
   * Bytes beyond `budgetBytes` that only the timings may take: the texts
   * fill `budgetBytes` as they would without timings, and their timings go
   * here first (default 0: text and timings share `budgetBytes`).
   */
  timingsBytes?: number;
  /**
   * Bytes for the term counts of the rows, from rank 1 down (term-vectors.ts;
   * default 0: none). Counting takes a pass over each text: these are made
   * as the rows are read in, until their bytes are spent.
   */
  vectorBytes?: number;
  /** Ranks whose term counts are held already (the build's, stored-term-counts.ts): no vector is made for them. */
  counted?: (rank: number) => boolean;
}

/** What a Buffer and its row cost beside their bytes. */
const ROW_OVERHEAD = 160;

/** Rows' bytes are copied into slabs this large (#copied). */
const SLAB_BYTES = 16 * 2 ** 20;

export class HotTranscripts {
  /** By video id (popularity rank); holes for videos without a transcript and past the budget. */
  readonly #rows: (HotRow | undefined)[] = [];
  /** The rows' term counts (term-vectors.ts), and their dictionary. */
  readonly vectors = new TermVectors();

  #bytes = 0;
  #count = 0;

  /** Where rows' bytes are copied to (#copied). */
  #slab = Buffer.alloc(0);
  #slabUsed = 0;

  /**
   * The bytes copied into a slab shared with other rows: the garbage
   * collector tracks each ArrayBuffer, and a hundred thousand of them, one
   * per row as the database hands them out, made its pauses longer.
   */
  #copied(bytes: Buffer): Buffer {
    if (bytes.length > SLAB_BYTES / 4) return bytes;
    if (this.#slabUsed + bytes.length > this.#slab.length) {
      this.#slab = Buffer.allocUnsafeSlow(SLAB_BYTES);
      this.#slabUsed = 0;
    }
    const copy = this.#slab.subarray(this.#slabUsed, this.#slabUsed + bytes.length);
    bytes.copy(copy);
    this.#slabUsed += bytes.length;
    return copy;
  }

  get(id: number): HotRow | undefined {
    return this.#rows[id];
  }

  get transcripts(): number {
    return this.#count;
  }

  get bytes(): number {
    return this.#bytes;
  }

  /**
   * Reads the primary transcripts of the artifact set in rank order, a
   * slice (512 rows, a few MiB) per turn of the event loop (searches answer meanwhile, reading
   * from the database what is not here yet), until the budget is spent.
   */
  async load(db: Database.Database, options: HotOptions): Promise<HotWarmth> {
    const { budgetBytes, timingsBytes = 0, vectorBytes = 0, counted, sliceRows = 512, pause = () => new Promise<void>((resolve) => setImmediate(resolve)) } = options;
    const started = performance.now();
    // What the timings have taken so far of `timingsBytes`.
    let timingsOver = 0;
    let vectors = 0;
    const done = (outcome: HotWarmth["outcome"]): HotWarmth => ({
      transcripts: this.#count,
      bytes: this.#bytes,
      timingsBytes: timingsOver,
      vectors,
      vectorBytes: this.vectors.bytes,
      outcome,
      ms: performance.now() - started,
    });
    if (budgetBytes <= 0) return done("budget");
    const slice = db.prepare(
      `SELECT v.id AS id, t.word_count AS words, v.view_count AS views, CAST(t.script AS BLOB) AS bytes, t.timings AS timings
       FROM videos v JOIN transcripts t ON t.id = v.transcript WHERE v.id > ? ORDER BY v.id LIMIT ?`,
    );
    let after = 0;
    for (;;) {
      await pause();
      if (!db.open) return done("closed");
      const rows = slice.all(after, sliceRows) as { id: number; words: number; views: number; bytes: Buffer; timings: Buffer }[];
      for (const { id, words, views, bytes, timings } of rows) {
        const starts = compactTimings(timings);
        const over = Math.min(starts.length, timingsBytes - timingsOver);
        const cost = bytes.length + starts.length + ROW_OVERHEAD;
        if (this.#bytes + cost - timingsOver - over > budgetBytes) return done("budget");
        const row: HotRow = { words, views, bytes: this.#copied(bytes), starts: this.#copied(starts) };
        // A vector's size is known once it is made: the last one may go past the budget by its own size.
        if (this.vectors.bytes < vectorBytes && !counted?.(id)) {
          const terms = this.vectors.vectorOf(bytes);
          if (terms) {
            row.terms = terms;
            vectors++;
          }
        }
        this.#rows[id] = row;
        this.#bytes += cost;
        timingsOver += over;
        this.#count++;
      }
      if (rows.length < sliceRows) return done("complete");
      after = rows[rows.length - 1]!.id;
    }
  }
}
