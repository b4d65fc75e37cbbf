/**
 * What a running server holds besides its HTTP listener: the live store, the
 * served artifact set (swappable), the YouTube client and live fetcher, and
 * the watcher that switches sets when a new one is published. `main.ts` and
 * the tests open it the same way.
 *
 * At start the published set is verified against its manifest (set-verifier.ts)
 * unless this machine already did and it has not changed. A set that fails is
 * not served: the newest earlier build that verifies is (health degraded), and
 * with none the start is refused.
 */
import { realpathSync } from "node:fs";
import { join } from "node:path";
import { dataDirLayout } from "../../pipeline/artifact/layout/index.js";
import { trimmableThrough } from "../../pipeline/artifact/live-store/index.js";
import { readManifest } from "../../pipeline/artifact/manifest/index.js";
import { createYouTubeClient, ExitPool, exitPolicyFromSettings, type ExitStateStore, type YouTubeClient, type YouTubeClientOptions } from "../../pipeline/youtube/index.js";
import { openExitStore, type OpenedExitStore } from "../../pipeline/youtube/exits/open-exit-store.js";
import type { RedisConnection } from "../coordination/redis-client.js";
import { ArtifactSwitch, type SwitchOutcome, type SwitchTrigger } from "../artifact-set/artifact-switch.js";
import { CatalogHolder } from "../artifact-set/catalog-holder.js";
import { CurrentWatcher } from "../artifact-set/current-watcher.js";
import { previousVerifiedSet, verifySet } from "../artifact-set/set-verifier.js";
import { prereadFiles, prereadFits } from "../artifact-set/set-preread.js";
import type { Config } from "../config.js";
import type { Catalog } from "../data/catalog.js";
import { openCatalog, type ArtifactCatalog, type CatalogOptions } from "../artifact-set/artifact-catalog.js";
import { LiveStore } from "../live-store/live-store.js";
import { memoryOptions } from "../search/memory/budget.js";
import { createLiveFetcher, type LiveFetcher } from "../live/live-fetcher.js";
import type { FetchCoordination } from "../live/fetch-coordination.js";
import type { SharedLiveStore } from "../live-store/pg-live-store.js";
import { errorFields, type Logger } from "../log.js";
import { ServiceState } from "../service-state.js";


export interface RuntimeOptions {
  log: Logger;
  /** Milliseconds since the epoch. Default Date.now. */
  clock?: () => number;
  /** Extra client options (tests inject short backoffs, which also shorten the exits' cool-down); config wins for the rest of what it sets. */
  client?: Omit<YouTubeClientOptions, "origin" | "proxyUrls" | "exitPool" | "exitPolicy" | "maxExitWaitMs" | "timeoutMs" | "maxBlockedRetries">;
  /** Watch DATA_DIR for a new `current`. Default true. */
  watch?: boolean;
  /** Poll interval of `current`'s target in ms; 0 disables. Default 2000. */
  pollMs?: number;
  /** Called right after a switch to a newly published set, with that set; it must not throw. */
  onSwitched?: (catalog: ArtifactCatalog) => void;
  /** Live-fetch claims and negative cache shared with other processes (WORKERS > 1); default: this process's own. */
  coordination?: FetchCoordination;
  /** Other processes write the live store too: look for their commits this often, in ms (0: never, the default). */
  liveSyncMs?: number;
  /** The live store shared by every replica (DATABASE_URL): this one's `live.db` becomes its mirror; closed with the runtime. */
  sharedLive?: SharedLiveStore;
  /** The health state to report into (main.ts makes it first, so shared services can report before the runtime opens); default a new one. */
  state?: ServiceState;
  /** REDIS_URL's connection: the exits' state is shared by the fleet there, with DATA_DIR/exits.db behind it while Redis is down. */
  redis?: Pick<RedisConnection, "redis" | "usable" | "failed">;
  /**
   * Readies the first set to serve (its search memory, practice requests; main.ts), begun while its files
   * are hashed and before the live store is reconciled with it; the runtime opens without waiting for it
   * to end (`Runtime.prepared`). A set that then fails verification is closed, and the set served instead
   * is readied the same way. Default: nothing.
   */
  prepare?: (catalog: ArtifactCatalog) => Promise<void>;
  /** Read the set served first through into the page cache when it was verified earlier and PREREAD_SET is on (set-preread.ts); default true. With WORKERS > 1 one worker does it for all. */
  preread?: boolean;
}

export interface Runtime {
  live: LiveStore;
  catalogs: CatalogHolder<ArtifactCatalog>;
  /** undefined when LIVE_FETCH is off. */
  fetcher: LiveFetcher | undefined;
  /** The live fetcher's exits (for /metrics); undefined when LIVE_FETCH is off. */
  exits: ExitPool | undefined;
  /** Health and readiness for /healthz and /readyz (main.ts marks it loaded once the first set is warm). */
  state: ServiceState;
  /** Settles once `prepare` has readied the set served first and, where it does, the set has been read into the page cache (at once without either); never rejects. */
  prepared: Promise<void>;
  /** Re-reads `current` and switches if it changed (SIGHUP forces a retry of a set that failed before). */
  reload(trigger: SwitchTrigger, force?: boolean): Promise<SwitchOutcome>;
  /** A request found the database of `catalog` damaged (`code`): unhealthy, then back to an earlier verified set. */
  databaseFault(code: string, catalog: Catalog): Promise<SwitchOutcome>;
  close(): Promise<void>;
}

export async function openRuntime(config: Config, options: RuntimeOptions): Promise<Runtime> {
  const { log } = options;
  const state = options.state ?? new ServiceState();
  const live = LiveStore.open(dataDirLayout(config.dataDir).liveStore);
  const shared = options.sharedLive;
  try {
    // Before the set is reconciled: it is trimmed against the shared store's id and numbers.
    await shared?.adopt(live);
    const trimThrough = (dir: string): number => trimmableThrough(config.dataDir, live.storeId, [readManifest(dir)]);
    const open = (dir: string, reconcile = true): ArtifactCatalog =>
      openCatalog({ dir, live, liveTrimThrough: trimThrough(dir), reconcile, ...catalogSettings(config) });
    // A set switched to while serving warms its index in the background; the first one is readied by `prepare` (main.ts).
    const openAndWarm = (dir: string): ArtifactCatalog => {
      const catalog = open(dir);
      void warmLogged(catalog, log);
      return catalog;
    };
    const prereadStop = new AbortController();
    // Opened by its resolved path: the set stays the same files whatever `current` does next.
    const { catalog: first, servedDir, failedDir, prepared, preread: prereading } = await openStartSet({
      dataDir: config.dataDir,
      state,
      log,
      open,
      trimThrough,
      prepare: options.prepare,
      ...(config.prereadSet && options.preread !== false
        ? { preread: { signal: prereadStop.signal, reservedBytes: (config.searchMemoryMb + config.dbCacheMb) * 2 ** 20 } }
        : {}),
    });
    const catalogs = new CatalogHolder(first, {
      onClosed: (catalog) => log.info("old artifact set released", { builtAt: catalog.manifest.builtAt }),
    });
    const artifactSwitch = new ArtifactSwitch({
      dataDir: config.dataDir,
      holder: catalogs,
      open: openAndWarm,
      servedDir,
      ...(failedDir === undefined ? {} : { failedDir }),
      ...(options.onSwitched ? { onSwitched: options.onSwitched } : {}),
      state,
      log,
    });
    const watcher = new CurrentWatcher({
      dataDir: config.dataDir,
      onChange: (trigger) => {
        artifactSwitch.check(trigger).catch((error: unknown) => log.error("artifact set check failed", { trigger, ...errorFields(error) }));
      },
      log,
      ...(options.watch === undefined ? {} : { watch: options.watch }),
      ...(options.pollMs === undefined ? {} : { pollMs: options.pollMs }),
    });
    const { client, fetcher, exitStore } = openLiveFetch({ config, options, catalogs });
    const liveSync = options.liveSyncMs !== undefined && options.liveSyncMs > 0 ? syncLive({ catalogs, everyMs: options.liveSyncMs, log }) : undefined;
    shared?.mirror(catalogs, live);
    return {
      live,
      catalogs,
      fetcher,
      exits: client?.exits,
      state,
      // Ready once the set is in the page cache too, where it is read: the first searches then wait on no disk.
      prepared: Promise.all([prepared, prereading]).then(() => undefined),
      reload: (trigger, force = false) => artifactSwitch.check(trigger, force),
      databaseFault: (code, catalog) => artifactSwitch.fallBack(catalog, code),
      async close() {
        prereadStop.abort();
        await prereading;
        clearInterval(liveSync);
        watcher.close();
        artifactSwitch.close();
        await fetcher?.close();
        await client?.close();
        exitStore?.close();
        await shared?.close();
        catalogs.close();
        live.close();
      },
    };
  } catch (error) {
    live.close();
    await shared?.close();
    throw error;
  }
}

/** The YouTube client and the live fetcher over the served sets (LIVE_FETCH); both undefined when it is off. */
function openLiveFetch(parts: { config: Config; options: RuntimeOptions; catalogs: CatalogHolder<ArtifactCatalog> }): {
  client: YouTubeClient | undefined;
  fetcher: LiveFetcher | undefined;
  exitStore: OpenedExitStore | undefined;
} {
  const { config, options, catalogs } = parts;
  if (!config.liveFetch) return { client: undefined, fetcher: undefined, exitStore: undefined };
  const exitStore = liveExitStore(config, options);
  const client = createYouTubeClient({
    ...options.client,
    origin: config.youtubeOrigin,
    exitPool: liveExitPool(config, options.client, exitStore.store),
    // A live request waits for a resting exit no longer than one upstream call may take; past that it is answered at once.
    maxExitWaitMs: config.youtubeTimeoutMs,
    timeoutMs: config.youtubeTimeoutMs,
    maxBlockedRetries: config.youtubeMaxBlockedRetries,
  });
  const fetcher = createLiveFetcher({
    client,
    catalogs,
    concurrency: config.liveFetchConcurrency,
    maxQueue: config.liveFetchQueue,
    negativeCacheMs: config.negativeCacheSeconds * 1000,
    negativeCacheSize: config.negativeCacheSize,
    ...(options.clock ? { clock: options.clock } : {}),
    ...(options.coordination ? { coordination: options.coordination } : {}),
    ...(options.sharedLive ? { shared: options.sharedLive } : {}),
    log: options.log,
  });
  return { client, fetcher, exitStore };
}

/**
 * The exits' state the live fetch shares: with the pipeline of this host (DATA_DIR/exits.db, made by whichever
 * opens it first) and, with REDIS_URL, with every replica; a DATA_DIR the file cannot be made in leaves this process's memory.
 */
function liveExitStore(config: Config, options: RuntimeOptions): OpenedExitStore {
  const { log } = options;
  return openExitStore({
    hostPath: dataDirLayout(config.dataDir).exits,
    ...(options.redis ? { redis: { ...options.redis, prefix: config.redisKeyPrefix } } : {}),
    log: { info: (message) => log.info(message), warn: (message) => log.warn(message) },
  });
}

/** Looks for live records other processes stored, every `everyMs`: one pragma per tick when nothing changed; a record another worker stored is then served and searched here too. */
function syncLive(options: { catalogs: CatalogHolder<ArtifactCatalog>; everyMs: number; log: Logger }): NodeJS.Timeout {
  const { catalogs, log } = options;
  const timer = setInterval(() => {
    try {
      catalogs.current.refreshLive();
    } catch (error) {
      log.warn("live store refresh failed", errorFields(error));
    }
  }, options.everyMs);
  timer.unref();
  return timer;
}

interface StartSetParts {
  dataDir: string;
  state: ServiceState;
  log: Logger;
  /** Opens a set by its resolved directory; reconciled with the live store unless `reconcile` is false. */
  open: (dir: string, reconcile: boolean) => ArtifactCatalog;
  trimThrough: (dir: string) => number;
  prepare: RuntimeOptions["prepare"];
  /** Present: read the published set through into the page cache, when it was verified earlier and fits beside `reservedBytes` (the server's own memory), until `signal` aborts. */
  preread?: { signal: AbortSignal; reservedBytes: number };
}

/** The set served first, and the readying of it (`prepare`), which may still run. */
interface StartSet {
  catalog: ArtifactCatalog;
  servedDir: string;
  failedDir?: string;
  prepared: Promise<void>;
  /** Settles once the set has been read through into the page cache, or at once where it is not; never rejects. */
  preread?: Promise<void>;
}

/**
 * The set to serve at start: the published one if it verifies, else the
 * newest earlier build that does (logged as an error, health degraded, the
 * published one returned as `failedDir`). The published set is opened and
 * its readying (`prepare`) begun while its files are hashed on another
 * thread; it is reconciled with the live store only once they match.
 * Returns once a set is verified and reconciled. Throws when none verifies.
 */
async function openStartSet(parts: StartSetParts): Promise<StartSet> {
  const { dataDir, state, log } = parts;
  const published = realpathSync(dataDirLayout(dataDir).current);
  let preread = Promise.resolve();
  const verified = verifySet(dataDir, published, log).then(
    (outcome) => {
      // Hashing has read the files through already.
      if (outcome === "recorded" && parts.preread) preread = prereadLogged(published, parts.preread, log);
      return undefined;
    },
    (error: unknown) => error,
  );
  const opened = openUnreconciled(parts, published);
  const failure = await verified;
  if (failure === undefined) {
    if ("error" in opened) throw opened.error;
    opened.catalog.reconcileLive(parts.trimThrough(published));
    return { catalog: opened.catalog, servedDir: published, prepared: opened.prepared, preread };
  }
  if ("catalog" in opened) {
    // Its readying ends early once it is closed; the set served instead is readied after it.
    opened.catalog.close();
    await opened.prepared;
  }
  const reason = failure instanceof Error ? failure.message : String(failure);
  const previous = await previousVerifiedSet(dataDir, published, new Set(), log);
  if (previous === undefined) {
    throw new Error(
      `The published artifact set ${published} failed verification and no earlier build in ${dataDirLayout(dataDir).builds} verifies, so nothing is served: ${reason}. ` +
        "Publish a good set (npm run pipeline -- run) and start again.",
      { cause: failure },
    );
  }
  log.error("published artifact set failed verification; serving the newest earlier build that verifies", { published, served: previous, reason });
  state.degraded(`the published set ${published} failed verification (${reason}); serving ${previous}`);
  const fallback = parts.open(previous, true);
  return { catalog: fallback, servedDir: previous, failedDir: published, prepared: readying(parts, fallback) };
}

/** Reads the files of set `dir` into the page cache where they fit beside the server's own memory (set-preread.ts) and logs how it went; never rejects. */
async function prereadLogged(dir: string, { signal, reservedBytes }: NonNullable<StartSetParts["preread"]>, log: Logger): Promise<void> {
  const files = readManifest(dir).files;
  const total = Object.values(files).reduce((sum, file) => sum + file.bytes, 0);
  if (!prereadFits(total, reservedBytes)) {
    log.info("artifact set not read into the page cache: it does not fit in the memory available beside the search memory", { dir, bytes: total, reservedBytes });
    return;
  }
  try {
    const { bytes, ms, outcome } = await prereadFiles(Object.keys(files).map((name) => join(dir, name)), signal);
    log.info("artifact set read into the page cache", { dir, bytes, ms: Math.round(ms), outcome });
  } catch (error) {
    log.warn("reading the artifact set into the page cache failed", { dir, ...errorFields(error) });
  }
}

/** `dir` opened without reconciling, its readying begun; or why it could not be opened (a damaged set may fail here before its hash says so). */
function openUnreconciled(parts: StartSetParts, dir: string): { catalog: ArtifactCatalog; prepared: Promise<void> } | { error: unknown } {
  try {
    const catalog = parts.open(dir, false);
    return { catalog, prepared: readying(parts, catalog) };
  } catch (error) {
    return { error };
  }
}

/** `prepare` run on `catalog`; a failure is logged (the set still answers, from storage). */
function readying(parts: StartSetParts, catalog: ArtifactCatalog): Promise<void> {
  const failed = (error: unknown) => parts.log.error("readying the artifact set failed; searches read from storage", { dir: catalog.dir, ...errorFields(error) });
  try {
    // Begun now, on this turn: its first steps run while the files are hashed.
    return Promise.resolve(parts.prepare?.(catalog)).catch(failed);
  } catch (error) {
    failed(error);
    return Promise.resolve();
  }
}

/** The memory (one budget, split by search/memory/budget.ts), phrase-pair and word-bitmap settings of an artifact set's catalog, as the server opens it. */
export function catalogSettings(
  config: Config,
): Pick<CatalogOptions, "cacheBytes" | "indexBytes" | "pairBytes" | "hotTextBytes" | "termVectorBytes" | "termCountBytes" | "readThreads" | "touchVideos" | "warmSearches" | "search" | "wordBitmaps"> {
  return {
    search: { phrasePairs: config.searchPhrasePairs, cacheSize: config.searchCacheEntries },
    wordBitmaps: config.searchWordBitmaps,
    cacheBytes: config.dbCacheMb * 2 ** 20,
    ...memoryOptions(config.searchMemoryMb * 2 ** 20, config.searchMemoryHelpers),
  };
}

/** Warms a catalog's search memory (word bitmaps, index, the phrase-pair index's longest lists, the build's term counts, then the most viewed transcripts' text and term counts) and logs how it went; never rejects. */
export async function warmLogged(catalog: ArtifactCatalog, log: Logger): Promise<void> {
  try {
    const { bitmaps, index, pairs, counts, texts, searches, searchesMs } = await catalog.warm();
    const mb = (bytes: number) => Math.round(bytes / 2 ** 20);
    const builtAt = catalog.manifest.builtAt;
    if (bitmaps && bitmaps.words > 0) log.info("word bitmaps in memory", { builtAt, words: bitmaps.words, mb: mb(bitmaps.bytes), ms: Math.round(bitmaps.ms) });
    if (index?.outcome === "complete") log.info("search index in memory", { builtAt, mb: mb(index.bytes), ms: Math.round(index.ms) });
    else if (index?.outcome === "budget") {
      log.warn("search index larger than its share of SEARCH_MEMORY_MB; the rest is read from storage as needed", { builtAt, mb: mb(index.bytes), ms: Math.round(index.ms) });
    }
    if (pairs !== undefined && pairs.outcome !== "closed") {
      log.info("phrase-pair lists in memory", { builtAt, lists: pairs.lists, mb: mb(pairs.bytes), ms: Math.round(pairs.ms), outcome: pairs.outcome });
    }
    if (counts !== undefined && counts.outcome !== "closed" && counts.outcome !== "absent") {
      log.info("term counts in memory", { builtAt, transcripts: counts.transcripts, mb: mb(counts.bytes), ms: Math.round(counts.ms), outcome: counts.outcome });
    }
    if (texts !== undefined && texts.outcome !== "closed") {
      log.info("most viewed transcripts in memory", {
        builtAt,
        transcripts: texts.transcripts,
        mb: mb(texts.bytes),
        timingsMb: mb(texts.timingsBytes),
        termCounts: texts.vectors,
        termCountsMb: mb(texts.vectorBytes),
        ms: Math.round(texts.ms),
      });
    }
    if (searches > 0) log.info("search paths warmed", { builtAt, searches, ms: Math.round(searchesMs) });
  } catch (error) {
    log.error("search memory could not be filled", errorFields(error));
  }
}

/** SIGHUP makes the server look at `current` now (and retry a set that failed to open). Returns the remover. */
export function reloadOnSighup(runtime: Pick<Runtime, "reload">): () => void {
  const onHup = (): void => {
    void runtime.reload("sighup", true);
  };
  process.on("SIGHUP", onHup);
  return () => process.off("SIGHUP", onHup);
}

/** The live fetcher's exits: YOUTUBE_PROXY_URLS under the YOUTUBE_EXIT_* policy; a test's short backoffs shorten the cool-down, its `random` sets the jitter. */
function liveExitPool(config: Config, client: RuntimeOptions["client"], store: ExitStateStore): ExitPool {
  return new ExitPool({
    proxyUrls: [...config.youtubeProxyUrls],
    store,
    policy: {
      ...exitPolicyFromSettings(config, config.youtubeOrigin),
      ...(client?.backoffBaseMs === undefined ? {} : { coolDownMs: client.backoffBaseMs }),
      ...(client?.backoffMaxMs === undefined ? {} : { coolDownMaxMs: client.backoffMaxMs }),
    },
    ...(client?.random ? { random: client.random } : {}),
  });
}
