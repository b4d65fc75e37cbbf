/**
 * The catalog the server reads: one published artifact set (SQLite opened
 * read-only, FlexSearch title index in memory) and, optionally, the live
 * store of transcripts fetched since that set was built.
 *
 * The artifact set answers first; the live store fills what it lacks.
 */
import Database from "better-sqlite3";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { ARTIFACT_FILES, type Manifest, type VideoRecord } from "../../pipeline/artifact/contract.js";
import { ArtifactError, readManifest } from "../../pipeline/artifact/manifest.js";
import { hasPhrasePairs } from "../../pipeline/artifact/phrase-pairs.js";
import { importTitleIndex } from "../../pipeline/artifact/title-index.js";
import type { Catalog, ChannelPage, SearchPage, SearchParams, Stats, TranscriptLookup } from "./catalog.js";
import type { LiveStore, Placement } from "./live-store.js";
import { SEARCH_DEFAULTS, TranscriptSearch, type SearchOptions, type SearchShard } from "./search.js";
import { ShardSearch, type DocumentFrequencies } from "./shard.js";
import { TranscriptTables } from "./transcript-tables.js";
import { HotTranscripts, type HotWarmth } from "./hot-transcripts.js";
import { ftsPageBytes, longestLists, openIndexConnection, warmIndex, warmLists, type IndexWarmth, type ListWarmth } from "./index-memory.js";
import { indexPrimeJobs, listPrimeJobs, primeInWorkers, textPrimeJobs } from "./prime.js";
import { TextPrefetch } from "./text-prefetch.js";
import { warmUpQueries } from "./search-warmup.js";
import { WordBitmaps, type BitmapWarmth } from "./word-bitmaps.js";

export { ArtifactError };

export interface CatalogOptions {
  /** The artifact set's directory (e.g. `<DATA_DIR>/current`). */
  dir: string;
  /** Transcripts fetched live; searched and served beside the artifact set. */
  live?: LiveStore;
  /** Live-store records up to this sequence number leave the store when it opens (default 0: none; see `trimmableThrough`). */
  liveTrimThrough?: number;
  search?: SearchOptions;
  /** Bytes of the database SQLite may memory-map (default 256 MiB). */
  mmapBytes?: number;
  /**
   * SQLite's page cache for the database (default 64 MiB). SQLite's own
   * default (2 MiB) is smaller than one query's reads at 500,000
   * transcripts: the b-tree's interior pages were evicted by the text read
   * for scoring and read again for the next row, several times slower.
   */
  cacheBytes?: number;
  /**
   * Memory for the full-text index (index-memory.ts): a second connection
   * whose page cache `warm()` fills. 0 (the default): full-text queries
   * share the main connection and read the index from storage as needed.
   */
  indexBytes?: number;
  /**
   * Memory for the longest lists of the phrase-pair index, the pairs of
   * common words (`of_the`), read by `warm()` into the full-text index's
   * page cache after the index, longest first. Needs `indexBytes`; 0 (the
   * default): they are read from storage as needed.
   */
  pairBytes?: number;
  /**
   * Memory for the text of the most viewed transcripts (hot-transcripts.ts),
   * filled by `warm()`. 0 (the default): every text is read from the database.
   */
  hotTextBytes?: number;
  /**
   * Read the set's word bitmaps into memory in `warm()` (word-bitmaps.ts;
   * default true): about 60 KiB per common word at 500,000 transcripts.
   * false: every search's list of all its words' matches comes from FTS5.
   */
  wordBitmaps?: boolean;
  /**
   * Worker threads that read ahead, in parallel, the texts a search is about
   * to read from the database one by one (text-prefetch.ts). 0 (the
   * default): none, each is read when it is needed.
   */
  readThreads?: number;
}

/** What `warm()` read into memory; a part is undefined when its memory is 0. */
export interface CatalogWarmth {
  index?: IndexWarmth;
  texts?: HotWarmth;
  pairs?: ListWarmth;
  /** The word bitmaps read into memory (word-bitmaps.ts), unless `wordBitmaps` is false. */
  bitmaps?: BitmapWarmth;
  /** Searches run to compile the search paths before the first user's (search-warmup.ts); their results are not kept. */
  searches: number;
}

/** Worker threads reading ahead for `warm()` (prime.ts): I/O-bound, so more than the cores. */
const PRIME_THREADS = 4;

/**
 * The pair lists held in memory are those of at least this many pages: a
 * list that long has a doclist index, and a phrase query seeks in it once
 * for each transcript holding the phrase's other pairs.
 */
const PAIR_LIST_MIN_PAGES = 4;

/** The live store is small and in insertion order: its matches are all scored, up to this many. */
const LIVE_CANDIDATES = 1000;

/**
 * Opens an artifact set. With a live store, the store is first reconciled with
 * the set: each record is filed against it, and those up to `liveTrimThrough` leave the store.
 */
export function openCatalog(options: CatalogOptions): ArtifactCatalog {
  const manifest = readManifest(options.dir);
  const file = join(options.dir, ARTIFACT_FILES.database);
  const db = new Database(file, { readonly: true, fileMustExist: true });
  let index: Database.Database | undefined;
  try {
    db.pragma(`mmap_size = ${options.mmapBytes ?? 256 * 1024 * 1024}`);
    db.pragma(`cache_size = -${Math.ceil((options.cacheBytes ?? 64 * 1024 * 1024) / 1024)}`);
    const builtAt = db.prepare("SELECT value FROM meta WHERE key = 'builtAt'").pluck().get();
    if (builtAt !== manifest.builtAt) {
      throw new ArtifactError(`${options.dir}: the database does not belong to this manifest (built ${String(builtAt)}, manifest says ${manifest.builtAt})`);
    }
    const titles = importTitleIndex(readFileSync(join(options.dir, ARTIFACT_FILES.titleIndex), "utf8"));
    const indexBytes = options.indexBytes ?? 0;
    index = indexBytes > 0 ? openIndexConnection(file, indexBytes + (options.pairBytes ?? 0)) : undefined;
    const catalog = new ArtifactCatalog(db, manifest, titles, { ...options, file }, index);
    options.live?.reconcile(options.liveTrimThrough ?? 0, (record) => catalog.placement(record));
    return catalog;
  } catch (error) {
    index?.close();
    db.close();
    throw error;
  }
}

export class ArtifactCatalog implements Catalog {
  readonly manifest: Manifest;
  readonly #db: Database.Database;
  readonly #file: string;
  /** The connection holding the full-text index in memory, when there is one. */
  readonly #index: Database.Database | undefined;
  readonly #indexBytes: number;
  /** Memory for the phrase-pair index's longest lists; 0 where there is no index connection or no pair index in use. */
  readonly #pairBytes: number;
  readonly #hot: HotTranscripts | undefined;
  readonly #hotTextBytes: number;
  readonly #prefetch: TextPrefetch | undefined;
  readonly #bitmaps = new WordBitmaps();
  readonly #loadBitmaps: boolean;
  readonly #tables: TranscriptTables;
  readonly #live: LiveStore | undefined;
  readonly #liveTables: TranscriptTables | undefined;
  readonly #search: TranscriptSearch;
  readonly #frequencies: DocumentFrequencies;
  readonly #settings: Required<SearchOptions>;

  constructor(
    db: Database.Database,
    manifest: Manifest,
    titles: ReturnType<typeof importTitleIndex>,
    options: CatalogOptions & { file: string },
    index?: Database.Database,
  ) {
    this.#db = db;
    this.#file = options.file;
    this.#index = index;
    this.#indexBytes = options.indexBytes ?? 0;
    this.#hotTextBytes = options.hotTextBytes ?? 0;
    this.#loadBitmaps = options.wordBitmaps ?? true;
    this.#hot = this.#hotTextBytes > 0 ? new HotTranscripts() : undefined;
    this.#prefetch = (options.readThreads ?? 0) > 0 ? new TextPrefetch(options.file, options.readThreads!) : undefined;
    this.manifest = manifest;
    this.#tables = new TranscriptTables(db);
    this.#live = options.live;
    this.#liveTables = options.live ? new TranscriptTables(options.live.db) : undefined;
    const settings = { ...SEARCH_DEFAULTS, ...options.search };
    const phrasePairs = settings.phrasePairs && hasPhrasePairs(db);
    this.#pairBytes = index && phrasePairs ? (options.pairBytes ?? 0) : 0;
    const dfStatement = (index ?? db).prepare("SELECT df FROM term_stats WHERE term = ?").pluck();
    const { transcripts, totalWords } = manifest.counts;
    const live = options.live;
    // One set of statistics for both shards, so their scores compare.
    const frequencies: DocumentFrequencies = {
      df: (term) => (dfStatement.get(term) as number | undefined) ?? 0,
      stats: () => ({
        documents: transcripts + (live?.counts().transcripts ?? 0),
        averageLength: transcripts ? totalWords / transcripts : 1,
      }),
    };
    this.#frequencies = frequencies;
    this.#settings = settings;
    const shards: SearchShard[] = [
      {
        search: new ShardSearch(
          db,
          titles,
          frequencies,
          { ...settings, popularityOrdered: true, phrasePairs },
          { index, hot: this.#hot, prefetch: this.#prefetch, bitmaps: this.#bitmaps },
        ),
        generation: () => 0,
      },
    ];
    if (live) {
      shards.push({
        search: new ShardSearch(live.db, live.titles, frequencies, { ...settings, candidates: LIVE_CANDIDATES, popularityOrdered: false, phrasePairs: false }),
        generation: () => live.generation(),
      });
    }
    this.#search = new TranscriptSearch(shards, settings.cacheSize);
  }

  version(): string {
    return `${this.manifest.builtAt}/${this.#live?.generation() ?? 0}`;
  }

  getTranscript(videoId: string, languageCode: string): TranscriptLookup {
    const stored = this.#tables.getTranscript(videoId, languageCode);
    if (stored.kind === "found" || !this.#liveTables) return stored;
    const live = this.#liveTables.getTranscript(videoId, languageCode);
    if (live.kind === "found" || stored.kind === "unknown") return live;
    if (live.kind === "unknown") return stored;
    const languages = new Set([
      ...(stored.kind === "other-languages" ? stored.languages : []),
      ...(live.kind === "other-languages" ? live.languages : []),
    ]);
    return languages.size > 0 ? { kind: "other-languages", video: stored.video, languages: [...languages] } : { kind: "no-transcript", video: stored.video };
  }

  channelVideos(channelId: string, limit: number, offset: number): ChannelPage | undefined {
    const stored = this.#tables.channelVideos(channelId, this.#live ? offset + limit : limit, this.#live ? 0 : offset);
    if (!this.#live) return stored;
    const fresh = this.#live.newChannelVideos(channelId, offset + limit);
    if (!stored && fresh.items.length === 0) return undefined;
    // Both lists are newest first; merge them and cut the page out.
    const items = [...(stored?.items ?? []), ...fresh.items]
      .sort((a, b) => (a.publishedAt < b.publishedAt ? 1 : a.publishedAt > b.publishedAt ? -1 : 0))
      .slice(offset, offset + limit);
    const freshTotal = this.#live.newChannelVideos(channelId, Number.MAX_SAFE_INTEGER).items.length;
    return {
      channelTitle: stored?.channelTitle ?? fresh.channelTitle ?? "",
      items,
      total: (stored?.total ?? 0) + freshTotal,
    };
  }

  search(params: SearchParams): SearchPage {
    return this.#search.search(params);
  }

  stats(): Stats {
    const live = this.#live?.counts() ?? { videos: 0, transcripts: 0, totalWords: 0, channels: 0 };
    const base = this.manifest.counts;
    const transcripts = base.transcripts + live.transcripts;
    const totalWords = base.totalWords + live.totalWords;
    return {
      videos: base.videos + live.videos,
      transcripts,
      totalWords,
      avgWordsPerTranscript: transcripts ? Math.round(totalWords / transcripts) : 0,
      channels: base.channels + live.channels,
    };
  }

  /** Stores a live-fetched record; it is served and searchable as soon as this returns. */
  storeLive(record: VideoRecord): void {
    if (!this.#live) throw new Error("this catalog has no live store");
    this.#live.put(record, this.placement(record));
  }

  /** Brings the live store's memory up to what other processes sharing it committed (WORKERS > 1). */
  refreshLive(): void {
    this.#live?.refresh();
  }

  /** Where a record's video stands in this artifact set. */
  placement(record: VideoRecord): Placement {
    const stored = this.#tables.getTranscript(record.videoId, "");
    return {
      videoInArtifacts: stored.kind !== "unknown",
      artifactHasTranscript: stored.kind === "other-languages",
      channelInArtifacts: this.#tables.hasChannel(record.channelId),
    };
  }

  /**
   * Reads into memory the word bitmaps (word-bitmaps.ts), the full-text
   * index (index-memory.ts), then the longest lists of the phrase-pair
   * index, then the text of the most viewed transcripts
   * (hot-transcripts.ts), then touches the videos table, a slice per turn
   * of the event loop, and waits for the
   * text read-ahead threads to start (text-prefetch.ts). Searches answer
   * meanwhile, reading from storage what is not in memory yet, with the
   * same results.
   */
  async warm(): Promise<CatalogWarmth> {
    const warmth: CatalogWarmth = { searches: 0 };
    const pairLists = this.#index && this.#pairBytes > 0 ? longestLists(this.#index, "phrase_pairs", PAIR_LIST_MIN_PAGES) : [];
    // Worker threads read ahead what the steps below read one page at a time.
    const jobs = [
      ...(this.#index ? indexPrimeJobs(this.#index, PRIME_THREADS) : []),
      ...(pairLists.length > 0 ? listPrimeJobs("phrase_pairs", pairLists, this.#pairBytes, ftsPageBytes(this.#db, "phrase_pairs")) : []),
      ...(this.#hot ? textPrimeJobs(this.#hotRanksEstimate(), PRIME_THREADS) : []),
    ];
    const readAhead = jobs.length > 0 ? primeInWorkers(this.#file, jobs, PRIME_THREADS) : Promise.resolve();
    if (this.#loadBitmaps) warmth.bitmaps = await this.#bitmaps.load(this.#db);
    if (this.#index) warmth.index = await warmIndex(this.#index, { budgetBytes: this.#indexBytes });
    if (this.#index && this.#pairBytes > 0) warmth.pairs = await warmLists(this.#index, "phrase_pairs", pairLists, { budgetBytes: this.#pairBytes });
    if (this.#hot && this.#db.open) warmth.texts = await this.#hot.load(this.#db, { budgetBytes: this.#hotTextBytes });
    if (this.#index || this.#hot) await this.#touchVideos();
    await readAhead;
    await this.#prefetch?.ready();
    warmth.searches = await this.#warmSearches();
    return warmth;
  }

  /**
   * Runs the warm-up searches (search-warmup.ts), one per turn of the event
   * loop, on words of the five most viewed transcripts, then empties the
   * result cache; stops early when the database is closed.
   */
  async #warmSearches(): Promise<number> {
    if (!this.#db.open) return 0;
    // The five most viewed are the first text held in memory, where there is any.
    const held = [1, 2, 3, 4, 5].map((id) => this.#hot?.get(id)?.bytes.toString("utf8"));
    const text = held.every((t) => t !== undefined)
      ? held.join("\n")
      : (this.#db.prepare("SELECT t.script FROM videos v JOIN transcripts t ON t.id = v.transcript WHERE v.id <= 5 ORDER BY v.id").pluck().all() as string[]).join("\n");
    const bound = this.#db.prepare("SELECT view_count FROM videos WHERE id <= 100 ORDER BY id DESC LIMIT 1").pluck().get() as number | undefined;
    const queries = warmUpQueries(text, this.#frequencies.df, {
      documents: this.#frequencies.stats().documents,
      indexCountMaxDf: this.#settings.indexCountMaxDf,
      countTermMaxShare: this.#settings.countTermMaxShare,
      minViews: bound ?? 0,
    });
    let run = 0;
    for (const query of queries) {
      await new Promise<void>((resolve) => setImmediate(resolve));
      if (!this.#db.open) break;
      this.#search.search(query);
      run++;
    }
    this.#search.clearCache();
    return run;
  }

  /**
   * Reads every page of the videos table and its video-id index, a slice
   * per turn of the event loop. Most of them lie in the memory-mapped start
   * of the file: once touched they stay mapped, which the page cache reclaim
   * of this machine leaves alone, and a query never takes a page fault there
   * (each fault reads ahead up to the device's read_ahead_kb, 8 MiB here).
   */
  async #touchVideos(sliceRows = 20_000): Promise<void> {
    const slice = this.#db.prepare("SELECT count(transcript), max(id) FROM videos WHERE id > ? AND id <= ?").raw();
    const last = this.#db.prepare("SELECT coalesce(max(id), 0) FROM videos").pluck().get() as number;
    for (let after = 0; after < last; after += sliceRows) {
      await new Promise<void>((resolve) => setImmediate(resolve));
      if (!this.#db.open) return;
      slice.get(after, after + sliceRows);
    }
    if (this.#db.open) this.#db.prepare("SELECT count(video_id) FROM videos WHERE video_id > ''").pluck().get();
  }

  /** How many of the most viewed transcripts SEARCH_TEXT_MB holds, from the mean size of the first 200. */
  #hotRanksEstimate(): number {
    const mean = this.#db
      .prepare("SELECT avg(length(CAST(t.script AS BLOB))) FROM videos v JOIN transcripts t ON t.id = v.transcript WHERE v.id <= 200")
      .pluck()
      .get() as number | null;
    return Math.ceil(this.#hotTextBytes / Math.max(1024, mean ?? 0));
  }

  close(): void {
    this.#prefetch?.close();
    if (this.#index?.open) this.#index.close();
    if (this.#db.open) this.#db.close();
  }
}
