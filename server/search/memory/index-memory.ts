/**
 * The full-text index of an artifact set held in memory: a second read-only
 * connection to the database that runs only full-text queries, so
 * transcript text read for ranking and snippets (on the other connection)
 * never pushes index pages out. Its pages are read at start.
 *
 * Where the index lies in the file's memory-mapped start (a build puts it
 * there: pipeline/build/build-database.ts), the connection reads it from
 * the mapping: pages of the operating system's cache, one copy for every
 * process serving the set (each worker of a server), and kept, since a
 * reclaim of idle page cache such as DAMON-based reclaim takes only
 * unmapped pages (docs/search-memory.md). What lies past it (a set built
 * before, a larger index) goes to the connection's own page cache,
 * process memory that the reclaim leaves alone too, sized for the index.
 */
import type Database from "better-sqlite3";
import { ARTIFACT_MAPPED_BYTES } from "../../../pipeline/artifact/contract/index.js";
import { openArtifactDatabase } from "../../data/artifact-database.js";

/** How a warm-up in slices ended (this one and hot-transcripts.ts). */
export interface Warmth {
  /** Bytes read into memory. */
  bytes: number;
  /** "budget": the budget ran out before everything was read; "closed": the database was closed meanwhile. */
  outcome: "complete" | "budget" | "closed";
  ms: number;
}

export type IndexWarmth = Warmth;

export interface WarmOptions {
  /** Stop once this many bytes are read. */
  budgetBytes: number;
  /** Rows read per slice, a few milliseconds of work between two requests (default: the warm-up's own). */
  sliceRows?: number;
  /** Awaited before each slice; default: the next turn of the event loop. */
  pause?: () => Promise<void>;
}

/** Room in the index connection's page cache beside the budget: the small tables and the b-tree's interior pages. */
const INDEX_CACHE_SLACK_BYTES = 16 * 2 ** 20;

/** FTS5's own default leaf page size (its `pgsz` option), in bytes. */
const FTS5_DEFAULT_PAGE_BYTES = 4050;

/** `mappedBytes`: how far into the file the connection maps it (default ARTIFACT_MAPPED_BYTES; 0: every page goes to its cache). */
export function openIndexConnection(file: string, budgetBytes: number, mappedBytes = ARTIFACT_MAPPED_BYTES): Database.Database {
  const db = openArtifactDatabase(file);
  try {
    db.pragma(`mmap_size = ${mappedBytes}`);
    setIndexCacheBytes(db, budgetBytes);
    return db;
  } catch (error) {
    db.close();
    throw error;
  }
}

/** Caps the index connection's page cache at `budgetBytes` (and a little slack); pages above a lowered cap go as others are read. */
export function setIndexCacheBytes(db: Database.Database, budgetBytes: number): void {
  const pageSize = db.pragma("page_size", { simple: true }) as number;
  db.pragma(`cache_size = ${Math.ceil((Math.max(0, budgetBytes) + INDEX_CACHE_SLACK_BYTES) / pageSize)}`);
}

/**
 * Reads the index into the connection's page cache: the vocabulary and the
 * segment index whole, then the segment pages (`transcript_fts_data`, one
 * FTS5 page per row, 2048 per slice, about 8 MiB) until `budgetBytes`. Slices of rows are read between
 * turns of the event loop (`pause`), so a server can warm a set while it
 * serves; stops early when the connection is closed.
 */
export async function warmIndex(db: Database.Database, options: WarmOptions): Promise<IndexWarmth> {
  const { budgetBytes, sliceRows = 2048, pause = () => new Promise<void>((resolve) => setImmediate(resolve)) } = options;
  const started = performance.now();
  let bytes = 0;
  const done = (outcome: IndexWarmth["outcome"]): IndexWarmth => ({ bytes, outcome, ms: performance.now() - started });
  // count(*) visits every leaf page of these small tables.
  for (const table of ["term_stats", "transcript_fts_idx", "transcript_fts_config"]) {
    if (!db.open) return done("closed");
    db.prepare(`SELECT count(*) FROM ${table}`).pluck().get();
  }
  const slice = db.prepare("SELECT id, length(block) AS size FROM transcript_fts_data WHERE id > ? ORDER BY id LIMIT ?").raw();
  let after = Number.MIN_SAFE_INTEGER;
  for (;;) {
    await pause();
    if (!db.open) return done("closed");
    const rows = slice.all(after, sliceRows) as [number, number][];
    for (const [, size] of rows) bytes += size;
    if (rows.length < sliceRows) return done("complete");
    after = rows[rows.length - 1]![0];
    if (bytes >= budgetBytes) return done("budget");
  }
}

/** The leaf pages `first..last` of FTS5 segment `segid` that hold one term's list. */
export interface ListPages {
  segid: number;
  first: number;
  last: number;
}

/** The rowid in `<table>_data` of leaf page `page` of segment `segid` (FTS5's own layout: segment id above bit 37). */
export function leafRowid(segid: number, page: number): number {
  return segid * 2 ** 37 + page;
}

/**
 * The longest term lists of FTS5 table `table`, longest first: those of at
 * least `minPages` leaf pages. The segment index (`<table>_idx`) has a row
 * for each leaf page on which a term starts (its `pgno` is that page
 * number shifted left by one, the low bit a flag); a term whose list fills
 * the following pages starts none there, so the pages up to the next row's
 * are its list. The last list of a segment runs to the segment's last leaf.
 */
export function longestLists(db: Database.Database, table: string, minPages: number): ListPages[] {
  const starts = db.prepare(`SELECT segid, pgno >> 1 FROM ${table}_idx ORDER BY segid, term`).raw().all() as [number, number][];
  const lastLeaf = db.prepare(`SELECT max(id) FROM ${table}_data WHERE id BETWEEN ? AND ?`).pluck();
  const lists: ListPages[] = [];
  starts.forEach(([segid, first], i) => {
    const next = starts[i + 1];
    const last =
      next && next[0] === segid
        ? next[1] - 1
        : ((lastLeaf.get(leafRowid(segid, first), leafRowid(segid, 2 ** 36 - 1)) as number | null) ?? leafRowid(segid, first)) - leafRowid(segid, 0);
    if (last - first + 1 >= minPages) lists.push({ segid, first, last });
  });
  return lists.sort((a, b) => b.last - b.first - (a.last - a.first));
}

/**
 * The size of FTS5 table `table`'s leaf pages (its `pgsz` option; rows of
 * `<table>_data`, whatever the database's own page size).
 */
export function ftsPageBytes(db: Database.Database, table: string): number {
  const set = db.prepare(`SELECT v FROM ${table}_config WHERE k = 'pgsz'`).pluck().get() as number | undefined;
  return set ?? FTS5_DEFAULT_PAGE_BYTES;
}

/** How a warm-up of term lists ended: `lists` were read whole. */
export interface ListWarmth extends Warmth {
  lists: number;
}

/**
 * Reads into the connection's page cache the doclist indexes of `table`'s
 * segments (a few pages per long list, which a seek into it reads first),
 * then the leaf pages of `lists` in the order given, a slice of rows per
 * turn of the event loop, until `budgetBytes`; stops early when the
 * connection is closed.
 */
export async function warmLists(db: Database.Database, table: string, lists: readonly ListPages[], options: WarmOptions): Promise<ListWarmth> {
  const { budgetBytes, sliceRows = 2048, pause = () => new Promise<void>((resolve) => setImmediate(resolve)) } = options;
  const started = performance.now();
  let bytes = 0;
  let read = 0;
  const done = (outcome: ListWarmth["outcome"]): ListWarmth => ({ bytes, lists: read, outcome, ms: performance.now() - started });
  if (!db.open) return done("closed");
  const slice = db.prepare(`SELECT id, length(block) FROM ${table}_data WHERE id > ? AND id <= ? ORDER BY id LIMIT ?`).raw();
  /** The rows `from..to`, a slice per pause; "complete" once all are read. */
  const readRows = async (from: number, to: number): Promise<ListWarmth["outcome"]> => {
    for (let after = from - 1; ; ) {
      await pause();
      if (!db.open) return "closed";
      if (bytes >= budgetBytes) return "budget";
      const rows = slice.all(after, to, sliceRows) as [number, number][];
      for (const [, size] of rows) bytes += size;
      if (rows.length < sliceRows) return "complete";
      after = rows[rows.length - 1]![0];
    }
  };
  // The averages (id 1) and the structure (id 10), then each segment's doclist indexes (bit 36 set: above its leaves).
  const small = [[1, 10], ...[...new Set(lists.map((list) => list.segid))].map((segid) => [leafRowid(segid, 2 ** 36), leafRowid(segid, 2 ** 37 - 1)])];
  for (const [from, to] of small) {
    const outcome = await readRows(from!, to!);
    if (outcome !== "complete") return done(outcome);
  }
  for (const list of lists) {
    const outcome = await readRows(leafRowid(list.segid, list.first), leafRowid(list.segid, list.last));
    if (outcome !== "complete") return done(outcome);
    read++;
  }
  return done("complete");
}
