/**
 * `npm start`: load the config, bind the port (a port in use stops the start
 * before anything else), make sure an artifact set is published (the demo
 * one on first start, as DEMO allows), open it with the live store and the
 * live fetcher, serve, and only then (re)issue the demo key when serving the
 * demo data or revoke it otherwise, so a start that never serves changes no
 * key; switch to a newly published set on SIGHUP or when `current` changes
 * (revoking the demo key when that set is not the demo), and stop gracefully
 * on SIGTERM/SIGINT.
 *
 * With WORKERS > 1 this process becomes the primary (cluster/primary.ts) and
 * each worker runs the rest of this file, sharing rate limits, fetch claims
 * and the negative cache through the primary; the primary has already
 * published a set and issued the demo key.
 */
import cluster from "node:cluster";
import type http from "node:http";
import type { Server } from "node:net";
import { availableParallelism } from "node:os";
import { createApp } from "./app/app.js";
import { openKeyStore, type KeyStore } from "./auth/key-store.js";
import { openPgKeyStore } from "./auth/pg-key-store.js";
import { NO_USABLE_KEY, usableKeyCount } from "./auth/usable-keys.js";
import { ConfigError, loadConfig, type Config } from "./config.js";
import { demoKeyBanner, ensureServableSetOrExit, isDemoSet, issueDemoKey, revokeDemoKeys } from "./start/demo.js";
import { createLogger, errorFields, type Logger } from "./log.js";
import { createMemoryRateLimiter } from "./rate-limit/memory-rate-limiter.js";
import { openRuntime, reloadOnSighup, warmLogged, type Runtime } from "./start/runtime.js";
import { closeGracefully } from "./start/shutdown.js";
import { runPrimary } from "./cluster/primary.js";
import { connectWorker, type WorkerLink } from "./cluster/worker-link.js";
import { connectRedis, REDIS_FALLBACK, untilReady, type RedisConnection } from "./coordination/redis-client.js";
import { createRedisRateLimiter } from "./rate-limit/redis-rate-limiter.js";
import { createRedisNegativeCache } from "./coordination/redis-negative-cache.js";
import { createRedisFetchClaims } from "./coordination/redis-fetch-claims.js";
import { openSharedLiveStore } from "./live-store/pg-live-store.js";
import { waitForPostgres } from "./coordination/wait-for-postgres.js";
import { fallbackCoordination, localFetchCoordination, type FetchCoordination } from "./live/fetch-coordination.js";
import { createFallbackRateLimiter } from "./rate-limit/fallback-rate-limiter.js";
import type { RateLimiter } from "./rate-limit/rate-limiter.js";
import type { ArtifactCatalog } from "./artifact-set/artifact-catalog.js";
import { ServiceState } from "./service-state.js";
import { practiceServing } from "./start/serving-practice.js";
import { reservePortOrExit } from "./start/port-reservation.js";
import { parseStartArgs, START_USAGE, startHelp } from "./start/start-usage.js";
import { startedByNpmScript, whenParentGone } from "./start/parent-watch.js";
import { QueryEmbedders, warmQueryEmbedder } from "./search/semantic/query-embedders.js";

/** What serves while PostgreSQL is down, as /healthz says it. */
const POSTGRESQL_FALLBACK = "postgresql unreachable: live fetches stored here and queued for it, api keys from the copy in memory";

/** How often a worker looks for live records other workers stored (one cheap pragma when none). */
const LIVE_SYNC_MS = 250;

/** Practice search requests before ready (start/serving-practice.ts): enough for the engine to optimize the code around a search. */
const PRACTICE_REQUESTS = 200;

async function main(): Promise<void> {
  const config = startConfig();
  if (config === undefined) return;
  // A worker's lines name it, so an operator can tell the processes apart.
  const log = createLogger({ level: config.logLevel, ...(cluster.worker ? { fields: { worker: cluster.worker.id } } : {}) });
  const workers = config.workers === "auto" ? availableParallelism() : config.workers;
  if (cluster.isPrimary && workers > 1) return runPrimary(config, workers, log);
  const link = cluster.isWorker ? connectWorker() : undefined;
  // Before anything slow or lasting: a port in use is one line, and nothing has changed yet. A worker's port is the primary's.
  const reservation = link === undefined ? await reservePortOrExit(config.host, config.port) : undefined;
  const stop = watchStopSignals({ log, link });
  if (link === undefined) await ensureServableSetOrExit(config, log);
  if (stop.duringStartup()) return;

  const opened = await openServices({ config, log, link, stop });
  if (opened === undefined) return;
  const { runtime, keyStore, connection, close } = opened;
  const served = runtime.catalogs.current;
  // Answering from now on (liveness), ready (/readyz) once the search memory is filled, the practice done and the set read into the page cache where it is.
  const embedders = new QueryEmbedders(config);
  void runtime.prepared.then(() => {
    runtime.state.markLoaded();
    log.info("ready", { builtAt: served.manifest.builtAt, ms: Math.round(performance.now()) });
    void warmQueryEmbedder(runtime.catalogs.current, embedders, log);
  });

  const server = createApp({
    config,
    catalog: runtime.catalogs,
    keyStore,
    ...(runtime.fetcher ? { transcriptSource: runtime.fetcher } : {}),
    ...(runtime.exits ? { exits: runtime.exits } : {}),
    rateLimiter: rateLimiterFor({ config, connection, link }),
    log,
    state: runtime.state,
    onDatabaseFault: (code, faulty) => void runtime.databaseFault(code, faulty),
    embedders,
  });
  serve({ server, reservation, config, log, runtime, served, keyStore, link });
  stop.whenServing({ server, graceMs: config.shutdownGraceMs, close });
  // SIGHUP: switch to the set `current` points at now (see server/live/README.md).
  reloadOnSighup(runtime);
  // A worker whose primary is gone stops as on SIGTERM (its port is the primary's).
  if (link !== undefined) process.on("disconnect", () => stop.signal("SIGTERM"));
}

/** The settings, or undefined once --help is answered; a usage or settings problem exits 2. */
function startConfig(): Config | undefined {
  // Before the settings: help works whatever the environment holds, and neither it nor a usage error touches DATA_DIR.
  const args = parseStartArgs(process.argv.slice(2));
  if ("problem" in args) {
    process.stderr.write(`${args.problem}\n\n${START_USAGE}\n`);
    process.exit(2);
  }
  if (args.help) {
    process.stdout.write(`${startHelp()}\n`);
    return undefined;
  }
  try {
    return loadConfig();
  } catch (error) {
    if (error instanceof ConfigError) {
      process.stderr.write(`${error.message}\n`);
      process.exit(2);
    }
    throw error;
  }
}

interface StopSignals {
  /** A stop was asked for. */
  requested(): boolean;
  /** During start-up: when a stop was asked for, ends the process after `close` (exit 0) and says true. */
  duringStartup(close?: () => Promise<void> | void): boolean;
  /** From now on a stop closes the server gracefully, then `close`. */
  whenServing(serving: { server: http.Server; graceMs: number; close: () => Promise<void> }): void;
  /** Acts as if `signal` had come. */
  signal(signal: NodeJS.Signals): void;
}

/**
 * SIGTERM and SIGINT, handled from the start so a stop during a slow start
 * (systemd, Ctrl-C) also ends with exit 0: start-up checks `duringStartup`
 * between its steps; once listening, the graceful stop takes over.
 */
function watchStopSignals(options: { log: Logger; link: WorkerLink | undefined }): StopSignals {
  const { log } = options;
  let stopRequested = false;
  let onStopSignal = (signal: NodeJS.Signals) => {
    if (stopRequested) return;
    stopRequested = true;
    log.info("shutting down", { signal, during: "start-up" });
  };
  const signalled = (signal: NodeJS.Signals) => onStopSignal(signal);
  process.on("SIGTERM", signalled);
  process.on("SIGINT", signalled);
  // Under `npm start`, npm gone (killed outright, so it passed no signal on) stops the server as SIGTERM would.
  if (options.link === undefined && startedByNpmScript(process.env)) {
    whenParentGone(() => {
      log.warn("the npm process that started the server is gone; stopping");
      signalled("SIGTERM");
    });
  }
  const exitAfter = (closing: Promise<boolean>): void => {
    void closing
      .then((clean) => {
        log.info("stopped", { clean });
        process.exit(0);
      })
      .catch((error: unknown) => {
        log.error("shutdown failed", errorFields(error));
        process.exit(1);
      });
  };
  return {
    requested: () => stopRequested,
    duringStartup(close = () => undefined) {
      if (!stopRequested) return false;
      exitAfter(
        Promise.resolve()
          .then(close)
          .then(() => true),
      );
      return true;
    },
    whenServing({ server, graceMs, close }) {
      onStopSignal = (signal) => {
        if (stopRequested) return;
        stopRequested = true;
        log.info("shutting down", { signal, graceMs });
        exitAfter(
          closeGracefully(server, { graceMs, log }).then(async (clean) => {
            await close();
            return clean;
          }),
        );
      };
    },
    signal: signalled,
  };
}
interface OpenOptions {
  config: Config;
  log: Logger;
  link: WorkerLink | undefined;
  stop: StopSignals;
}

interface Opened {
  runtime: Runtime;
  keyStore: KeyStore;
  connection: RedisConnection | undefined;
  /** Closes all of it. */
  close: () => Promise<void>;
}

/**
 * The key store, Redis, the live store and the runtime (the served set and
 * the live fetcher), each reporting into one health state; undefined when a
 * stop came meanwhile (the process is then on its way out).
 */
async function openServices(options: OpenOptions): Promise<Opened | undefined> {
  const { config, log, link, stop } = options;
  const state = new ServiceState();
  const pgReachable = postgresReachability(state);
  // A replica started before PostgreSQL waits for it (not listening meanwhile) instead of exiting.
  if (config.databaseUrl !== undefined && !(await waitForPostgres(config.databaseUrl, log, { stopped: stop.requested }))) {
    stop.duringStartup();
    return undefined;
  }
  // DATABASE_URL: the keys every replica shares, in PostgreSQL; else keys.db in DATA_DIR.
  const keyStore =
    config.databaseUrl === undefined
      ? openKeyStore({ dataDir: config.dataDir })
      : await openPgKeyStore({ url: config.databaseUrl, log, cacheMs: config.keyCacheSeconds * 1000, onReachable: pgReachable("keys") });
  const { connection, coordination } = openCoordination({ config, log, link, state });
  // DATABASE_URL: live fetches are committed to PostgreSQL and mirrored into live.db by every replica.
  const sharedLive =
    config.databaseUrl === undefined
      ? undefined
      : await openSharedLiveStore({
          url: config.databaseUrl,
          log,
          maxPending: config.livePendingMax,
          deadlineMs: config.databaseDeadlineMs,
          onReachable: pgReachable("live"),
        });
  const runtime = await openRuntime(config, {
    log,
    state,
    // While the set's files are hashed: search memory filled, then practice requests (its work is dropped if they do not match).
    prepare: (catalog) => warmUp({ config, log, catalog, stop }),
    // The page cache is the machine's: one worker reads the set through for all.
    preread: cluster.worker === undefined || cluster.worker.id === 1,
    // Synchronously after the swap: no request is served by the new set with the demo key still valid.
    onSwitched: (next) => {
      if (!isDemoSet(next.manifest)) revokeDemoKeys(keyStore, next.manifest.dataset, log);
    },
    ...(coordination ? { coordination } : {}),
    ...(link ? { liveSyncMs: LIVE_SYNC_MS } : {}),
    ...(sharedLive ? { sharedLive } : {}),
    ...(connection ? { redis: connection } : {}),
  });
  const close = async () => {
    await runtime.close();
    keyStore.close();
    link?.close();
    connection?.disconnect();
  };
  // A short wait, so a replica starting with Redis counts in Redis from its first request; it serves either way.
  if (connection !== undefined && !(await untilReady(connection.redis, 5_000))) log.warn("redis not reachable at start; serving with local fallbacks until it is");
  if (stop.duringStartup(close)) return undefined;
  return { runtime, keyStore, connection, close };
}

/** PostgreSQL is down for this replica while the key store or the live store says so (each says it once per change). */
function postgresReachability(state: ServiceState): (part: string) => (up: boolean) => void {
  const pgDown = new Set<string>();
  return (part) => (up) => {
    if (up) pgDown.delete(part);
    else pgDown.add(part);
    if (pgDown.size === 0) state.serviceUp("postgresql");
    else state.serviceDown("postgresql", POSTGRESQL_FALLBACK);
  };
}

/**
 * REDIS_URL: the live-fetch claims and the negative cache are shared by every
 * replica (and worker) instead of held here, with this process's own (or the
 * primary's) serving while Redis is down. Without Redis, a worker's are its
 * primary's, and a lone process's the runtime's default.
 */
function openCoordination(options: { config: Config; log: Logger; link: WorkerLink | undefined; state: ServiceState }): {
  connection: RedisConnection | undefined;
  coordination: FetchCoordination | undefined;
} {
  const { config, log, link, state } = options;
  const connection = config.redisUrl === undefined ? undefined : connectRedis({ url: config.redisUrl, log, deadlineMs: config.redisDeadlineMs });
  if (connection === undefined) return { connection, coordination: link?.coordination };
  // Degraded from the start until Redis first answers (a replica may start while Redis is down).
  state.serviceDown("redis", REDIS_FALLBACK);
  connection.onChange((up) => (up ? state.serviceUp("redis") : state.serviceDown("redis", REDIS_FALLBACK)));
  connection.redis.once("ready", () => state.serviceUp("redis"));
  // While Redis is down, the coordination of this process (or of the primary, with WORKERS > 1) serves instead.
  const localCoordination =
    link?.coordination ?? localFetchCoordination({ ttlMs: config.negativeCacheSeconds * 1000, maxEntries: config.negativeCacheSize });
  // With Redis, claims are taken there by every worker of every replica, so one of them fetches a miss.
  const shared = { redis: connection.redis, prefix: config.redisKeyPrefix, log, failed: connection.failed };
  const coordination = fallbackCoordination(
    {
      claims: createRedisFetchClaims({ ...shared, ttlMs: config.liveClaimSeconds * 1000 }),
      negative: createRedisNegativeCache({ ...shared, ttlMs: config.negativeCacheSeconds * 1000 }),
    },
    localCoordination,
    connection.usable,
  );
  return { connection, coordination };
}

/**
 * Readies the first set, begun while its files are hashed and going on
 * once the server answers: the search memory filled, so searches do not
 * wait on storage; then practice requests, so the users' requests run
 * compiled code around their searches too. /readyz says ready once both
 * are done. Skips the practice when a stop came meanwhile.
 */
async function warmUp(options: { config: Config; log: Logger; catalog: ArtifactCatalog; stop: StopSignals }): Promise<void> {
  const { config, log, catalog, stop } = options;
  await warmLogged(catalog, log);
  if (stop.requested()) return;
  const practice = catalog.practiceSearches(PRACTICE_REQUESTS);
  if (practice.length === 0) return;
  const { answered, failed, ms } = await practiceServing({ config, catalog, searches: practice, log });
  catalog.forgetSearches();
  log.info("serving paths warmed", { requests: answered, failed, ms: Math.round(ms) });
}

/** Per process, or the primary's with WORKERS > 1: the limiter without Redis, and its fallback with Redis down. */
function rateLimiterFor(options: { config: Config; connection: RedisConnection | undefined; link: WorkerLink | undefined }): RateLimiter {
  const { config, connection, link } = options;
  const localLimiter = link?.rateLimiter ?? createMemoryRateLimiter({ limit: config.rateLimitPerMinute });
  if (connection === undefined) return localLimiter;
  return createFallbackRateLimiter({
    shared: createRedisRateLimiter({ redis: connection.redis, prefix: config.redisKeyPrefix, limit: config.rateLimitPerMinute }),
    local: localLimiter,
    usable: connection.usable,
    failed: connection.failed,
  });
}

interface ServeOptions {
  server: http.Server;
  /** The port bound at start; undefined in a worker, which serves the connections its primary deals out (cluster/balancer.ts). */
  reservation: Server | undefined;
  config: Config;
  log: Logger;
  runtime: Runtime;
  /** The set served first. */
  served: ArtifactCatalog;
  keyStore: KeyStore;
  link: WorkerLink | undefined;
}

/**
 * Serves, and only then settles the demo key (issued when serving the demo
 * data, revoked otherwise), as the server starts to serve and before any
 * request is read: a start that fails before never changes a key.
 */
function serve(options: ServeOptions): void {
  const { server, reservation, config, log, runtime, served, keyStore, link } = options;
  // A worker's primary issues the demo key (once for all workers); with DATABASE_URL keys are made with `npm run keys` only.
  const settleDemoKey = (): string | undefined => {
    const manifest = runtime.catalogs.current.manifest;
    if (!isDemoSet(manifest)) revokeDemoKeys(keyStore, manifest.dataset, log);
    else if (link === undefined && config.databaseUrl === undefined) return issueDemoKey(keyStore, log);
    return undefined;
  };
  server.on("error", (error) => {
    log.error("server error", errorFields(error));
    process.exit(1);
  });
  if (link !== undefined) {
    settleDemoKey();
    // A worker's primary says when no key is usable, once for all workers.
    link.serve(server, { dataset: served.manifest.dataset, builtAt: served.manifest.builtAt, usableKeys: usableKeyCount(keyStore) });
  }
  if (reservation === undefined) return;
  // The server takes over the socket bound at start; connections are read only after this callback.
  server.listen(reservation, () => {
    const demoKey = settleDemoKey();
    const address = server.address();
    const port = typeof address === "object" && address !== null ? address.port : config.port;
    const url = `http://${config.host}:${port}`;
    const manifest = runtime.catalogs.current.manifest;
    log.info("listening", {
      url,
      pid: process.pid,
      dataset: manifest.dataset,
      builtAt: manifest.builtAt,
      liveFetch: config.liveFetch ? config.youtubeOrigin : "off",
      proxies: config.youtubeProxyUrls.length,
    });
    if (demoKey !== undefined) process.stdout.write(demoKeyBanner(url, demoKey));
    else if (usableKeyCount(keyStore) === 0) log.warn(NO_USABLE_KEY);
  });
}

main().catch((error: unknown) => {
  process.stderr.write(`Startup failed: ${error instanceof Error ? error.message : String(error)}\n`);
  createLogger({ level: "debug", write: (line) => process.stderr.write(line) }).error("startup failed", errorFields(error));
  process.exit(1);
});
