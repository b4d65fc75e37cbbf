/**
 * The catalog the server reads: one published artifact set (SQLite opened
 * read-only, FlexSearch title index in memory) and, optionally, the live
 * store of transcripts fetched since that set was built.
 *
 * The artifact set answers first; the live store fills what it lacks.
 */
import type Database from "better-sqlite3";
import { openArtifactDatabase } from "../data/artifact-database.js";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { ARTIFACT_FILES, ARTIFACT_MAPPED_BYTES, type Manifest, type TrackKind, type VideoRecord } from "../../pipeline/artifact/contract/index.js";
import { ArtifactError, readManifest } from "../../pipeline/artifact/manifest/index.js";
import { hasPhrasePairs, importTitleIndex } from "../../pipeline/artifact/search-index/index.js";
import type { Catalog, ChannelItem, ChannelList, ChannelPage, SearchPage, SearchParams, Stats, TranscriptLookup } from "../data/catalog.js";
import type { LiveStore, Placement } from "../live-store/live-store.js";
import { SEARCH_DEFAULTS, TranscriptSearch, type SearchOptions, type SearchShard } from "../search/search.js";
import { ShardSearch, type DocumentFrequencies } from "../search/shard.js";
import { Lru } from "../data/lru.js";
import { TranscriptTables } from "../data/transcript-tables.js";
import { SearchMemory, type MemoryWarmth, type SearchMemoryOptions } from "../search/memory/search-memory.js";
import { practiceRequests, runWarmUpSearches } from "../search/memory/search-warmup.js";
import { openSemanticSet, type SemanticSet } from "../search/semantic/semantic-set.js";

export { ArtifactError };

/** The memory helpers' options (indexBytes, pairBytes, hotTextBytes, wordBitmaps, readThreads, …) are search-memory.ts's. */
export interface CatalogOptions extends SearchMemoryOptions {
  /** The artifact set's directory (e.g. `<DATA_DIR>/current`). */
  dir: string;
  /** Transcripts fetched live; searched and served beside the artifact set. */
  live?: LiveStore;
  /** Live-store records up to this sequence number leave the store when it opens (default 0: none; see `trimmableThrough`). */
  liveTrimThrough?: number;
  /**
   * Reconcile the live store with the set when it opens (default true). False: not until `reconcileLive()`,
   * so a set whose files are still being verified can be warmed without the live store trimmed against it.
   */
  reconcile?: boolean;
  search?: SearchOptions;
  /** Bytes of the database SQLite may memory-map (default: as far as SQLite maps, ARTIFACT_MAPPED_BYTES). */
  mmapBytes?: number;
  /**
   * SQLite's page cache for the database (default 64 MiB). SQLite's own
   * default (2 MiB) is smaller than one query's reads in a large set: the
   * b-tree's interior pages are evicted by the text read for scoring and
   * read again for the next row, several times slower.
   */
  cacheBytes?: number;
  /** Run the warm-up searches in `warm()` (default true; search-warmup.ts). */
  warmSearches?: boolean;
}

/**
 * What `warm()` read into memory (search-memory.ts); a part is undefined
 * when its memory is 0. `searches`: searches run to compile the search
 * paths before the first user's (search-warmup.ts), their results not kept;
 * `searchesMs`: how long they took.
 */
export interface CatalogWarmth extends MemoryWarmth {
  searches: number;
  searchesMs: number;
}

/** Document frequencies kept, by term: a term is at most a query's length (500 characters), so 16 MiB at worst. */
const DF_KEPT_TERMS = 16_384;

/** The live store is small and in insertion order: its matches are all scored, up to this many. */
const LIVE_CANDIDATES = 1000;

/**
 * Opens an artifact set. With a live store, the store is first reconciled with
 * the set: each record is filed against it, and those up to `liveTrimThrough` leave the store.
 */
export function openCatalog(options: CatalogOptions): ArtifactCatalog {
  const manifest = readManifest(options.dir);
  const file = join(options.dir, ARTIFACT_FILES.database);
  const db = openArtifactDatabase(file);
  try {
    db.pragma(`mmap_size = ${options.mmapBytes ?? ARTIFACT_MAPPED_BYTES}`);
    db.pragma(`cache_size = -${Math.ceil((options.cacheBytes ?? 64 * 1024 * 1024) / 1024)}`);
    const builtAt = db.prepare("SELECT value FROM meta WHERE key = 'builtAt'").pluck().get();
    if (builtAt !== manifest.builtAt) {
      throw new ArtifactError(`${options.dir}: the database does not belong to this manifest (built ${String(builtAt)}, manifest says ${manifest.builtAt})`);
    }
    const titles = importTitleIndex(readFileSync(join(options.dir, ARTIFACT_FILES.titleIndex), "utf8"));
    const catalog = new ArtifactCatalog(db, manifest, titles, { ...options, file });
    try {
      if (options.reconcile ?? true) catalog.reconcileLive(options.liveTrimThrough ?? 0);
    } catch (error) {
      catalog.close();
      throw error;
    }
    return catalog;
  } catch (error) {
    if (db.open) db.close();
    throw error;
  }
}

export class ArtifactCatalog implements Catalog {
  readonly manifest: Manifest;
  /** The set's directory as opened (a build's resolved path when served; its name is the build id). */
  readonly dir: string;
  readonly #db: Database.Database;
  readonly #memory: SearchMemory;
  readonly #warmSearches: boolean;
  readonly #tables: TranscriptTables;
  readonly #live: LiveStore | undefined;
  readonly #liveTables: TranscriptTables | undefined;
  readonly #search: TranscriptSearch;
  readonly #frequencies: DocumentFrequencies;
  readonly #settings: Required<SearchOptions>;
  /** The set's channels as the build counted them, read on first use (they never change). */
  #artifactChannels: ChannelItem[] | undefined;
  /** Every channel with the live store's additions, sorted, for the catalog version it was made at. */
  #channelList: { version: string; items: ChannelItem[] } | undefined;
  /** The set's vectors for search by meaning, opened on first use; null when it has none. */
  #semantic: SemanticSet | null | undefined;

  constructor(db: Database.Database, manifest: Manifest, titles: ReturnType<typeof importTitleIndex>, options: CatalogOptions & { file: string }) {
    this.#db = db;
    this.#memory = new SearchMemory(options.file, options);
    this.#warmSearches = options.warmSearches ?? true;
    this.manifest = manifest;
    this.dir = options.dir;
    this.#tables = new TranscriptTables(db);
    this.#live = options.live;
    this.#liveTables = options.live ? new TranscriptTables(options.live.db) : undefined;
    const settings = { ...SEARCH_DEFAULTS, ...options.search };
    const phrasePairs = settings.phrasePairs && hasPhrasePairs(db);
    this.#memory.usePairs(phrasePairs);
    const index = this.#memory.index;
    const dfStatement = (index ?? db).prepare("SELECT df FROM term_stats WHERE term = ?").pluck();
    const { transcripts, totalWords } = manifest.counts;
    const live = options.live;
    // A query asks each term's frequency several times (planning, each tier, the count); the set's never change.
    const dfs = new Lru<string, number>(DF_KEPT_TERMS);
    // One set of statistics for both shards, so their scores compare.
    const frequencies: DocumentFrequencies = {
      df: (term) => {
        let df = dfs.get(term);
        if (df === undefined) dfs.set(term, (df = (dfStatement.get(term) as number | undefined) ?? 0));
        return df;
      },
      stats: () => ({
        documents: transcripts + (live?.counts().transcripts ?? 0),
        averageLength: transcripts ? totalWords / transcripts : 1,
      }),
    };
    this.#frequencies = frequencies;
    this.#settings = settings;
    const memory = this.#memory;
    const shards: SearchShard[] = [
      {
        search: new ShardSearch(
          db,
          titles,
          frequencies,
          { ...settings, popularityOrdered: true, phrasePairs },
          { ...(index && { index }), ...(memory.hot && { hot: memory.hot }), ...(memory.counts && { counts: memory.counts }), ...(memory.prefetch && { prefetch: memory.prefetch }), bitmaps: memory.bitmaps },
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

  /**
   * Files each live-store record against this set, and lets those up to `trimThrough` leave the store
   * (LiveStore.reconcile); openCatalog does it unless told not to.
   */
  reconcileLive(trimThrough: number): void {
    this.#live?.reconcile(trimThrough, (record) => this.placement(record));
  }

  version(): string {
    return `${this.manifest.builtAt}/${this.#live?.generation() ?? 0}`;
  }

  getTranscript(videoId: string, languageCode: string, track: TrackKind = "any"): TranscriptLookup {
    const stored = this.#tables.getTranscript(videoId, languageCode, track);
    if (stored.kind === "found" || !this.#liveTables) return stored;
    const live = this.#liveTables.getTranscript(videoId, languageCode, track);
    if (live.kind === "found" || stored.kind === "unknown") return live;
    if (live.kind === "unknown") return stored;
    // The language is stored on one side, but not as the kind asked for on either.
    if (stored.kind === "other-track" || live.kind === "other-track") return { kind: "other-track", video: stored.video };
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

  channels(limit: number, offset: number): ChannelList {
    const items = this.#sortedChannels();
    return { items: items.slice(offset, offset + limit), total: items.length };
  }

  /**
   * The set's channels plus the live store's, counted as `stats()` counts
   * (so the counts add up to its totals), most transcripts first, ties by id.
   * Made again only when the catalog's version changes.
   */
  #sortedChannels(): ChannelItem[] {
    const version = this.version();
    if (this.#channelList?.version === version) return this.#channelList.items;
    this.#artifactChannels ??= this.#tables.channels();
    const byId = new Map(this.#artifactChannels.map((channel) => [channel.channelId, { ...channel }]));
    for (const fresh of this.#live?.channelAdditions() ?? []) {
      const stored = byId.get(fresh.channelId);
      if (stored === undefined) byId.set(fresh.channelId, { ...fresh });
      else {
        // The set's title stays, as in channelVideos.
        stored.videoCount += fresh.videoCount;
        stored.transcriptCount += fresh.transcriptCount;
      }
    }
    const items = [...byId.values()].sort(
      (a, b) => b.transcriptCount - a.transcriptCount || (a.channelId < b.channelId ? -1 : a.channelId > b.channelId ? 1 : 0),
    );
    this.#channelList = { version, items };
    return items;
  }

  search(params: SearchParams): SearchPage {
    return this.#search.search(params);
  }

  /** Search by meaning over the set's vectors (server/search/semantic/); undefined when the set has none. */
  semantic(): SemanticSet | undefined {
    if (this.#semantic === undefined) this.#semantic = openSemanticSet(this.dir, this.#db) ?? null;
    return this.#semantic ?? undefined;
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
      transcriptsWithVectors: this.manifest.vectors?.transcripts ?? 0,
    };
  }

  /** Stores a live-fetched record (with the shared store's `seq`, when it has one); it is served and searchable as soon as this returns. */
  storeLive(record: VideoRecord, stored: { seq?: number; fetchedAt?: Date; pending?: boolean } = {}): void {
    if (!this.#live) throw new Error("this catalog has no live store");
    this.#live.put(record, { ...this.placement(record), ...stored });
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
   * Fills search's memory (search-memory.ts), then runs the warm-up
   * searches (search-warmup.ts) and empties the result cache. Searches
   * answer meanwhile, with the same results; stops early when the catalog
   * is closed.
   */
  async warm(): Promise<CatalogWarmth> {
    const warmth = await this.#memory.warm(this.#db);
    let searches = 0;
    const started = performance.now();
    if (this.#warmSearches) {
      const options = { documents: this.#frequencies.stats().documents, indexCountMaxDf: this.#settings.indexCountMaxDf, countTermMaxShare: this.#settings.countTermMaxShare };
      searches = await runWarmUpSearches(this.#db, this.#memory.hot, this.#frequencies.df, options, (params) => this.#search.search(params));
      this.#search.clearCache();
    }
    return { ...warmth, searches, searchesMs: performance.now() - started };
  }

  /**
   * Searches for practice requests before serving (server/start/serving-practice.ts), when
   * the warm-up runs (`warmSearches`); none otherwise.
   */
  practiceSearches(count: number): SearchParams[] {
    return this.#warmSearches ? practiceRequests(this.#db, this.#memory.hot, count) : [];
  }

  /** Empties the result cache, e.g. of practice requests: nothing they computed is kept for the users' searches. */
  forgetSearches(): void {
    this.#search.clearCache();
  }

  close(): void {
    this.#semantic?.close();
    this.#memory.close();
    if (this.#db.open) this.#db.close();
  }
}
