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
import type { Server } from "node:net";
import { availableParallelism } from "node:os";
import { createApp } from "./app/app.js";
import { openKeyStore } from "./auth/key-store.js";
import { openPgKeyStore } from "./auth/pg-key-store.js";
import { NO_USABLE_KEY, usableKeyCount } from "./auth/usable-keys.js";
import { ConfigError, loadConfig } from "./config.js";
import { demoKeyBanner, ensureServableSet, isDemoSet, issueDemoKey, NoArtifactSetError, revokeDemoKeys } from "./start/demo.js";
import { createLogger, errorFields } from "./log.js";
import { createMemoryRateLimiter } from "./rate-limit/memory-rate-limiter.js";
import { openRuntime, reloadOnSighup, warmLogged } from "./start/runtime.js";
import { closeGracefully } from "./start/shutdown.js";
import { runPrimary } from "./cluster/primary.js";
import { connectWorker } from "./cluster/worker-link.js";
import { connectRedis, REDIS_FALLBACK, untilReady } from "./coordination/redis-client.js";
import { createRedisRateLimiter } from "./rate-limit/redis-rate-limiter.js";
import { createRedisNegativeCache } from "./coordination/redis-negative-cache.js";
import { createRedisFetchClaims } from "./coordination/redis-fetch-claims.js";
import { openSharedLiveStore } from "./live-store/pg-live-store.js";
import { waitForPostgres } from "./coordination/wait-for-postgres.js";
import { fallbackCoordination, localFetchCoordination } from "./live/fetch-coordination.js";
import { createFallbackRateLimiter } from "./rate-limit/fallback-rate-limiter.js";
import { ServiceState } from "./service-state.js";
import { practiceServing } from "./start/serving-practice.js";
import { ListenError, reservePort } from "./start/port-reservation.js";
import { parseStartArgs, START_USAGE, startHelp } from "./start/start-usage.js";
import { startedByNpmScript, whenParentGone } from "./start/parent-watch.js";

/** What serves while PostgreSQL is down, as /healthz says it. */
const POSTGRESQL_FALLBACK = "postgresql unreachable: live fetches stored here and queued for it, api keys from the copy in memory";

/** How often a worker looks for live records other workers stored (one cheap pragma when none). */
const LIVE_SYNC_MS = 250;

/** Practice search requests before listening (start/serving-practice.ts): enough for the engine to optimize the code around a search. */
const PRACTICE_REQUESTS = 200;

async function main(): Promise<void> {
  // Before the settings: help works whatever the environment holds, and neither it nor a usage error touches DATA_DIR.
  const args = parseStartArgs(process.argv.slice(2));
  if ("problem" in args) {
    process.stderr.write(`${args.problem}\n\n${START_USAGE}\n`);
    process.exit(2);
  }
  if (args.help) {
    process.stdout.write(`${startHelp()}\n`);
    return;
  }
  let config;
  try {
    config = loadConfig();
  } catch (error) {
    if (error instanceof ConfigError) {
      process.stderr.write(`${error.message}\n`);
      process.exit(2);
    }
    throw error;
  }
  // A worker's lines name it, so an operator can tell the processes apart.
  const log = createLogger({ level: config.logLevel, ...(cluster.worker ? { fields: { worker: cluster.worker.id } } : {}) });
  const workers = config.workers === "auto" ? availableParallelism() : config.workers;
  if (cluster.isPrimary && workers > 1) return runPrimary(config, workers, log);
  const link = cluster.isWorker ? connectWorker() : undefined;
  // Before anything slow or lasting: a port in use is one line, and nothing has changed yet. A worker's port is the primary's.
  let reservation: Server | undefined;
  try {
    reservation = link === undefined ? await reservePort(config.host, config.port) : undefined;
  } catch (error) {
    if (error instanceof ListenError) {
      process.stderr.write(`${error.message}\n`);
      process.exit(1);
    }
    throw error;
  }
  // Handled from here on, so a stop during a slow start (systemd, Ctrl-C) also ends with exit 0:
  // start-up checks `stopRequested` between its steps; once listening, the graceful stop below takes over.
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
  if (link === undefined && startedByNpmScript(process.env)) {
    whenParentGone(() => {
      log.warn("the npm process that started the server is gone; stopping");
      signalled("SIGTERM");
    });
  }
  const stoppedDuringStartup = (close: () => Promise<void> | void = () => undefined): boolean => {
    if (!stopRequested) return false;
    void Promise.resolve()
      .then(close)
      .then(() => {
        log.info("stopped", { clean: true });
        process.exit(0);
      })
      .catch((error: unknown) => {
        log.error("shutdown failed", errorFields(error));
        process.exit(1);
      });
    return true;
  };

  try {
    if (link === undefined) await ensureServableSet(config, log);
  } catch (error) {
    if (error instanceof NoArtifactSetError) {
      process.stderr.write(`${error.message}\n`);
      process.exit(1);
    }
    throw error;
  }
  if (stoppedDuringStartup()) return;

  const state = new ServiceState();
  // PostgreSQL is down for this replica while the key store or the live store says so (each says it once per change).
  const pgDown = new Set<string>();
  const pgReachable = (part: string) => (up: boolean) => {
    if (up) pgDown.delete(part);
    else pgDown.add(part);
    if (pgDown.size === 0) state.serviceUp("postgresql");
    else state.serviceDown("postgresql", POSTGRESQL_FALLBACK);
  };
  // A replica started before PostgreSQL waits for it (not listening meanwhile) instead of exiting.
  if (config.databaseUrl !== undefined && !(await waitForPostgres(config.databaseUrl, log, { stopped: () => stopRequested }))) {
    stoppedDuringStartup();
    return;
  }
  // DATABASE_URL: the keys every replica shares, in PostgreSQL; else keys.db in DATA_DIR.
  const keyStore =
    config.databaseUrl === undefined
      ? openKeyStore({ dataDir: config.dataDir })
      : await openPgKeyStore({ url: config.databaseUrl, log, cacheMs: config.keyCacheSeconds * 1000, onReachable: pgReachable("keys") });
  // REDIS_URL: the rate-limit windows and the negative cache are shared by every replica (and worker) instead of held here.
  const connection = config.redisUrl === undefined ? undefined : connectRedis({ url: config.redisUrl, log, deadlineMs: config.redisDeadlineMs });
  const redis = connection?.redis;
  // Degraded from the start until Redis first answers (a replica may start while Redis is down).
  if (connection) {
    state.serviceDown("redis", REDIS_FALLBACK);
    connection.onChange((up) => (up ? state.serviceUp("redis") : state.serviceDown("redis", REDIS_FALLBACK)));
    redis?.once("ready", () => state.serviceUp("redis"));
  }
  // While Redis is down, the coordination of this process (or of the primary, with WORKERS > 1) serves instead.
  const localCoordination =
    link?.coordination ?? localFetchCoordination({ ttlMs: config.negativeCacheSeconds * 1000, maxEntries: config.negativeCacheSize });
  // With Redis, claims are taken there by every worker of every replica, so one of them fetches a miss.
  const coordination =
    connection
      ? fallbackCoordination(
          {
            claims: createRedisFetchClaims({
              redis: connection.redis,
              prefix: config.redisKeyPrefix,
              ttlMs: config.liveClaimSeconds * 1000,
              log,
              failed: connection.failed,
            }),
            negative: createRedisNegativeCache({
              redis: connection.redis,
              prefix: config.redisKeyPrefix,
              ttlMs: config.negativeCacheSeconds * 1000,
              log,
              failed: connection.failed,
            }),
          },
          localCoordination,
          connection.usable,
        )
      : link?.coordination;
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
    // Synchronously after the swap: no request is served by the new set with the demo key still valid.
    onSwitched: (next) => {
      if (!isDemoSet(next.manifest)) revokeDemoKeys(keyStore, next.manifest.dataset, log);
    },
    ...(coordination ? { coordination } : {}),
    ...(link ? { liveSyncMs: LIVE_SYNC_MS } : {}),
    ...(sharedLive ? { sharedLive } : {}),
  });
  const closeOpened = async () => {
    await runtime.close();
    keyStore.close();
    link?.close();
    connection?.disconnect();
  };
  // A short wait, so a replica starting with Redis counts in Redis from its first request; it serves either way.
  if (redis !== undefined && !(await untilReady(redis, 5_000))) log.warn("redis not reachable at start; serving with local fallbacks until it is");
  if (stoppedDuringStartup(closeOpened)) return;
  const catalog = runtime.catalogs.current;
  // Called as the server starts to serve, before any request is read: a start that fails before never changes a key.
  // A worker's primary issues the demo key (once for all workers); with DATABASE_URL keys are made with `npm run keys` only.
  const settleDemoKey = (): string | undefined => {
    const served = runtime.catalogs.current.manifest;
    if (!isDemoSet(served)) revokeDemoKeys(keyStore, served.dataset, log);
    else if (link === undefined && config.databaseUrl === undefined) return issueDemoKey(keyStore, log);
    return undefined;
  };
  // Before listening: the first searches should not wait on storage for the index.
  await warmLogged(catalog, log);
  if (stoppedDuringStartup(closeOpened)) return;
  // Then practice requests, so the first users' requests run compiled code around their searches too.
  const practice = catalog.practiceSearches(PRACTICE_REQUESTS);
  if (practice.length > 0) {
    const { answered, failed, ms } = await practiceServing({ config, catalog: runtime.catalogs, searches: practice, log });
    catalog.forgetSearches();
    log.info("serving paths warmed", { requests: answered, failed, ms: Math.round(ms) });
    if (stoppedDuringStartup(closeOpened)) return;
  }
  runtime.state.markLoaded();

  // Per process, or the primary's with WORKERS > 1: the limiter without Redis, and its fallback with Redis down.
  const localLimiter = link?.rateLimiter ?? createMemoryRateLimiter({ limit: config.rateLimitPerMinute });
  const server = createApp({
    config,
    catalog: runtime.catalogs,
    keyStore,
    ...(runtime.fetcher ? { transcriptSource: runtime.fetcher } : {}),
    rateLimiter: connection
      ? createFallbackRateLimiter({
          shared: createRedisRateLimiter({ redis: connection.redis, prefix: config.redisKeyPrefix, limit: config.rateLimitPerMinute }),
          local: localLimiter,
          usable: connection.usable,
          failed: connection.failed,
        })
      : localLimiter,
    log,
    state: runtime.state,
    onDatabaseFault: (code, faulty) => void runtime.databaseFault(code, faulty),
  });

  server.on("error", (error) => {
    log.error("server error", errorFields(error));
    process.exit(1);
  });
  // A worker serves the connections its primary accepts and deals out (cluster/balancer.ts).
  if (link !== undefined) settleDemoKey();
  // A worker's primary says when no key is usable, once for all workers.
  link?.serve(server, { dataset: catalog.manifest.dataset, builtAt: catalog.manifest.builtAt, usableKeys: usableKeyCount(keyStore) });
  if (reservation !== undefined) {
    // The server takes over the socket bound at start; connections are read only after this callback.
    server.listen(reservation, () => {
      const demoKey = settleDemoKey();
      const address = server.address();
      const port = typeof address === "object" && address !== null ? address.port : config.port;
      const url = `http://${config.host}:${port}`;
      const served = runtime.catalogs.current.manifest;
      log.info("listening", {
        url,
        pid: process.pid,
        dataset: served.dataset,
        builtAt: served.builtAt,
        liveFetch: config.liveFetch ? config.youtubeOrigin : "off",
        proxies: config.youtubeProxyUrls.length,
      });
      if (demoKey !== undefined) process.stdout.write(demoKeyBanner(url, demoKey));
      else if (usableKeyCount(keyStore) === 0) log.warn(NO_USABLE_KEY);
    });
  }

  onStopSignal = (signal) => {
    if (stopRequested) return;
    stopRequested = true;
    log.info("shutting down", { signal, graceMs: config.shutdownGraceMs });
    void closeGracefully(server, { graceMs: config.shutdownGraceMs, log })
      .then(async (clean) => {
        await closeOpened();
        log.info("stopped", { clean });
        process.exit(0);
      })
      .catch((error: unknown) => {
        log.error("shutdown failed", errorFields(error));
        process.exit(1);
      });
  };
  // SIGHUP: switch to the set `current` points at now (see server/live/README.md).
  reloadOnSighup(runtime);
  // A worker whose primary is gone stops as on SIGTERM (its port is the primary's).
  if (link !== undefined) process.on("disconnect", () => onStopSignal("SIGTERM"));
}

main().catch((error: unknown) => {
  process.stderr.write(`Startup failed: ${error instanceof Error ? error.message : String(error)}\n`);
  createLogger({ level: "debug", write: (line) => process.stderr.write(line) }).error("startup failed", errorFields(error));
  process.exit(1);
});
