/**
 * The bench, phase by phase, in a fixed order: (1) corpus and artifacts,
 * (2) server start and RSS, (3) search latency — first pass with an empty
 * result cache, then the same set again — sequential, then after a restart
 * at concurrency 8, (4) known-item recall, (5) serving vs a bare server,
 * (2b) mixed load and RSS, (6) peers in-process once the server is stopped,
 * and, when asked for, (7) the ablation of search's memory helpers (ablation.ts).
 */
import Database from "better-sqlite3";
import { existsSync, readFileSync, rmSync, statSync } from "node:fs";
import { mkdir, writeFile } from "node:fs/promises";
import { setTimeout as sleep } from "node:timers/promises";
import { request } from "undici";
import { join, resolve } from "node:path";
import { ARTIFACT_FILES } from "../../pipeline/artifact/contract/contract.js";
import { createRandom } from "../../pipeline/corpus/random.js";
import { dataDirLayout } from "../../pipeline/artifact/layout/layout.js";
import { openKeyStore } from "../../server/auth/key-store.js";
import { buildDirect, buildViaPipeline, hasArtifacts, readBuildRecord, type BuildRecord } from "./artifacts.js";
import { ensureCorpus } from "./corpus.js";
import { sampleKnownItems } from "./known-items.js";
import { percentile, timePaths, type LatencySummary } from "./latency.js";
import { gitCommitOf, loadAverage, machineInfo, type MachineInfo } from "./machine.js";
import type { BenchOptions, Phase } from "./options.js";
import { benchLayout } from "./paths.js";
import { comparePeers, type PeerComparison } from "./peers.js";
import { wrkAvailable } from "./wrk.js";
import { buildQuerySet, searchPath, type BenchQuery } from "./query-set.js";
import { measureRecall, type RecallResult } from "./recall.js";
import { startServer, type ServerProcess } from "./server-process.js";
import { measureServing, type ServingRow } from "./serving.js";
import { soak, type SoakResult } from "./soak.js";
import { dropFromPageCache, readIntoPageCache } from "./page-cache.js";
import { compareConfigs, measureAblation, type AblationConfig, type AblationRow } from "./ablation.js";
import { compareMcpWithRest, MCP_CLIENT, type McpComparison } from "./mcp-vs-rest.js";
import { compareWorkers, waitForWorkers, type WorkersComparison } from "./workers.js";
import { measureDataset, type DatasetFigures } from "./dataset.js";
import { comparePostgres, type PgPeerFigures } from "./pg-peer.js";
import { reachable, withoutCredentials } from "./reachable.js";
import { measureIngestLimits, type IngestLimitsFigures } from "./ingest-limits.js";
import { measureSemantic, type SemanticFigures } from "./semantic.js";

export interface SearchFigures {
  queries: number;
  kinds: Record<string, number>;
  sequentialFirst: LatencySummary;
  sequentialRepeat: LatencySummary;
  concurrentFirst: LatencySummary;
  concurrentRepeat: LatencySummary;
  concurrency: number;
  /** First sequential pass by query kind: p50/p99 ms. */
  byKind: Record<string, { n: number; p50: number; p99: number }>;
  /** The slowest queries of the first sequential pass. */
  slowest: { ms: number; kind: string; q: string; offset: number }[];
}

export interface BenchResults {
  size: number;
  seed: number;
  command: string;
  machine: MachineInfo;
  startedAt: string;
  finishedAt?: string;
  /** 1-minute load average when each phase started. */
  load: Partial<Record<Phase | "end", number>>;
  build?: BuildRecord & { reused: boolean };
  /** Commit when the server was first started: others commit in the same tree, and a long build can span their commits. */
  server?: {
    startMs: number;
    /** From spawn to ready (/readyz): the search memory filled; absent in results of trees before it was measured. */
    readyMs?: number;
    restartMs: number | undefined;
    restartReadyMs?: number;
    rssAfterLoadMiB: number;
    commit: string;
    pageCacheDropped?: boolean;
    hashedAtStart?: boolean;
    hashMs?: number;
  };
  search?: SearchFigures;
  recall?: RecallResult & { skipped: number };
  serving?: ServingRow[];
  soak?: SoakResult;
  peers?: PeerComparison;
  /** One row per configuration of search's memory helpers (ablation.ts). */
  ablation?: AblationRow[];
  /** This checkout's server and `--compare-tree`'s, alternated (ablation.ts compareConfigs). */
  compare?: { tree: string; label: string; rows: AblationRow[] };
  /** search_transcripts over /mcp beside GET /v1/search, alternated on one server (mcp-vs-rest.ts). */
  mcp?: McpComparison;
  /** Search throughput with WORKERS=1 and 2 (workers.ts). */
  workers?: WorkersComparison;
  /** GET /v1/transcript with the Redis rate limiter vs bare node:http; `skipped` when Redis did not answer. */
  redis?: { url: string; rows: ServingRow[] } | { url: string; skipped: string };
  /** Export as Parquet and JSON Lines, and a build from the Parquet export (dataset.ts). */
  dataset?: DatasetFigures;
  /** PostgreSQL full-text search beside ours (pg-peer.ts); `skipped` when PostgreSQL did not answer. */
  pgPeer?: PgPeerFigures | { url: string; skipped: string };
  /** Crawl and fetch through the stand-in's limits with workers (ingest-limits.ts); `skipped` when PostgreSQL did not answer. */
  ingestLimits?: IngestLimitsFigures | { url: string; skipped: string };
  semantic?: SemanticFigures;
  /** Wall time of each phase, seconds. */
  phaseSeconds?: Partial<Record<Phase, number>>;
}

const CONCURRENCY = 8;

export async function runBench(options: BenchOptions, command: string, log: (line: string) => void): Promise<BenchResults> {
  const layout = benchLayout(options.out);
  await mkdir(layout.logs, { recursive: true });
  const results: BenchResults = {
    size: options.size,
    seed: options.seed,
    command,
    machine: machineInfo(),
    startedAt: new Date().toISOString(),
    load: {},
  };
  const has = (phase: Phase) => options.phases.includes(phase);
  const phaseStarted: Partial<Record<Phase, number>> = {};
  const mark = (phase: Phase | "end") => {
    results.load[phase] = loadAverage();
    if (phase !== "end") phaseStarted[phase] = performance.now();
  };
  const took = (phase: Phase) => {
    const started = phaseStarted[phase];
    if (started !== undefined) results.phaseSeconds = { ...results.phaseSeconds, [phase]: Math.round((performance.now() - started) / 100) / 10 };
  };
  const save = () => writeFile(layout.results, JSON.stringify(results, null, 2) + "\n");

  // (1) corpus and artifacts; the ingest-limits phase crawls the corpus itself and needs no set.
  if (has("corpus")) mark("corpus");
  // The ingest-limits and semantic phases make what they measure themselves.
  const needSet = options.phases.some((phase) => phase !== "ingest-limits" && phase !== "semantic");
  results.build = needSet ? await ensureArtifactSet(options, layout, has("corpus"), log) : undefined;
  await save();
  const artifactsDir = dataDirLayout(layout.dataDir).current;
  const databasePath = join(artifactsDir, ARTIFACT_FILES.database);

  const needServer = (["server", "search", "recall", "serving", "soak"] as const).some(has);
  const ownServers = (["ablation", "compare", "mcp", "workers", "redis"] as const).some(has);
  const queries = needSet && (needServer || ownServers || has("peers") || has("pg-peer")) ? buildQuerySet(databasePath, options.queries, options.seed) : [];
  await writeFile(join(layout.root, "queries.json"), JSON.stringify(queries, null, 1) + "\n");

  const apiKey = needServer || ownServers ? benchKey(layout.dataDir) : "";
  const start = (env: Record<string, string> = {}, repoRoot?: string) =>
    startServer({ dataDir: layout.dataDir, logPath: join(layout.logs, "server.log"), probePath: "/healthz", env, repoRoot });

  const sample = needServer || has("redis") ? sampleStored(databasePath, 500, options.seed) : { videoIds: [], channelIds: [] };
  if (needServer) {

    mark("server");
    // The first start hashes the whole set (this machine's record of verified sets removed), as on a
    // machine the set was just copied to; the restart after the search pass finds the record.
    rmSync(dataDirLayout(layout.dataDir).verified, { force: true });
    if (options.dropCache) {
      dropFromPageCache(databasePath);
      log("dropped the database from the page cache");
    }
    log("starting the server");
    const logPath = join(layout.logs, "server.log");
    const logOffset = existsSync(logPath) ? statSync(logPath).size : 0;
    let server: ServerProcess = await startServer({ dataDir: layout.dataDir, logPath, probePath: "/healthz", env: { LOG_LEVEL: "info" } });
    results.server = {
      startMs: server.startMs,
      readyMs: server.readyMs,
      restartMs: undefined,
      rssAfterLoadMiB: mib(server.rssBytes()),
      commit: machineInfo().commit,
      pageCacheDropped: options.dropCache,
      hashedAtStart: true,
      hashMs: hashingMs(readFileSync(logPath, "utf8").slice(logOffset)),
    };
    log(`server answered after ${server.startMs.toFixed(0)} ms, ready after ${server.readyMs.toFixed(0)} ms, RSS ${results.server.rssAfterLoadMiB} MiB`);
    await save();
    try {
      if (has("search")) {
        mark("search");
        const paths = queries.map(searchPath);
        const budget = Math.max(60, options.peerBudgetSeconds);
        const pass = (concurrency: number) => timePaths(server.origin, paths, { concurrency, apiKey, budgetSeconds: budget });
        const firstPass = await pass(1);
        const sequentialFirst = firstPass.summary;
        const sequentialRepeat = (await pass(1)).summary;
        log(`search sequential: first p99 ${sequentialFirst.p99.toFixed(1)} ms, repeated p99 ${sequentialRepeat.p99.toFixed(1)} ms`);
        // A fresh process, so the concurrent first pass meets an empty result cache too.
        await server.stop();
        server = await start();
        results.server.restartMs = server.startMs;
        results.server.restartReadyMs = server.readyMs;
        const concurrentFirst = (await pass(CONCURRENCY)).summary;
        const concurrentRepeat = (await pass(CONCURRENCY)).summary;
        log(`search concurrency ${CONCURRENCY}: first p99 ${concurrentFirst.p99.toFixed(1)} ms, repeated p99 ${concurrentRepeat.p99.toFixed(1)} ms`);
        const kinds: Record<string, number> = {};
        for (const q of queries) kinds[q.kind] = (kinds[q.kind] ?? 0) + 1;
        const byKind: SearchFigures["byKind"] = {};
        const groups = new Map<string, number[]>();
        queries.forEach((q, i) => {
          const sample = firstPass.samples[i]!;
          if (Number.isNaN(sample)) return;
          for (const key of [q.kind.split(" +")[0]!, q.kind.includes(" +") ? `+${q.kind.split(" +")[1]}` : "no filter"]) {
            groups.set(key, [...(groups.get(key) ?? []), sample]);
          }
        });
        for (const [key, samples] of groups) {
          const sorted = samples.sort((a, b) => a - b);
          byKind[key] = { n: sorted.length, p50: percentile(sorted, 50), p99: percentile(sorted, 99) };
        }
        const slowest = queries
          .map((q, i) => ({ ms: Math.round(firstPass.samples[i]! * 10) / 10, kind: q.kind, q: q.q, offset: q.offset }))
          .sort((a, b) => b.ms - a.ms)
          .slice(0, 8);
        results.search = { queries: queries.length, kinds, sequentialFirst, sequentialRepeat, concurrentFirst, concurrentRepeat, concurrency: CONCURRENCY, byKind, slowest };
        await save();
      }
      if (has("recall")) {
        mark("recall");
        const sampled = sampleKnownItems(databasePath, options.knownItems, options.seed);
        log(`recall: ${sampled.items.length} known items (${sampled.skipped} transcripts without a distinctive 2-4 word run)`);
        const recall = await measureRecall(server.origin, apiKey, sampled.items, options.peerBudgetSeconds);
        results.recall = { ...recall, skipped: sampled.skipped };
        log(`recall@10 ${recall.recallAt10.toFixed(3)} (phrase ${recall.phraseRecallAt10.toFixed(3)})`);
        await save();
      }
      if (has("serving")) {
        mark("serving");
        results.serving = await measureServing({
          origin: server.origin,
          apiKey,
          videoIds: sample.videoIds.slice(0, 200),
          seconds: options.servingSeconds,
          connections: options.servingConnections,
          responsesPath: join(layout.root, "serving-responses.json"),
          log,
        });
        await save();
      }
      if (has("soak")) {
        // Requests autocannon left queued must drain first, or they would count against the mixed load.
        await settle(server.origin);
        mark("soak");
        log(`mixed load for ${options.soakSeconds} s`);
        const s = server;
        results.soak = await soak({
          origin: s.origin,
          apiKey,
          seconds: options.soakSeconds,
          queries,
          videoIds: sample.videoIds,
          channelIds: sample.channelIds,
          rss: () => s.rssBytes(),
          seed: options.seed,
        });
        log(`soak: ${results.soak.requests} requests, RSS ${results.soak.rssStartMiB} → ${results.soak.rssEndMiB} MiB`);
        await save();
      }
    } finally {
      await server.stop();
    }
  }

  // Ablation and compare: server configurations one after another, each on the verified path (a set not verified
  // on this machine yet is hashed by one unmeasured start first), on the same set and query set.
  const configurations = async (configs?: AblationConfig[]) => {
    if (!existsSync(dataDirLayout(layout.dataDir).verified)) await (await start()).stop();
    return measureAblation({
      start,
      configs,
      paths: queries.map(searchPath),
      apiKey,
      concurrency: CONCURRENCY,
      budgetSeconds: Math.max(60, options.peerBudgetSeconds),
      dropCachePath: options.dropCache ? databasePath : undefined,
      log,
    });
  };
  if (has("ablation")) {
    mark("ablation");
    results.ablation = await configurations();
    await save();
  }
  if (has("compare") && options.compareTree !== undefined) {
    const tree = resolve(options.compareTree);
    const label = `${tree} at ${gitCommitOf(tree)}`;
    mark("compare");
    results.compare = { tree, label, rows: await configurations(compareConfigs(tree, label, options.compareRounds)) };
    await save();
  }

  if (has("mcp")) {
    mark("mcp");
    const compare = async (env: Record<string, string>) => {
      const server = await start(env);
      try {
        return await compareMcpWithRest({ origin: server.origin, apiKey, queries, budgetSeconds: Math.max(60, options.peerBudgetSeconds), log });
      } finally {
        await server.stop();
      }
    };
    results.mcp = { client: MCP_CLIENT, searched: await compare({ SEARCH_CACHE_ENTRIES: "0" }), cached: await compare({}) };
    took("mcp");
    await save();
  }
  if (has("workers")) {
    mark("workers");
    // Both servers' searches from the operating system's cache, so the phase compares cores, not disk reads.
    log(`read the database into the page cache for the workers phase in ${readIntoPageCache(databasePath).toFixed(1)} s`);
    const logPath = join(layout.logs, "server.log");
    results.workers = await compareWorkers({
      start: async (workers) => {
        const offset = existsSync(logPath) ? statSync(logPath).size : 0;
        // Result cache off: each worker has its own, so repeated queries would measure how the cache splits, not the cores.
        const server = await start({ WORKERS: String(workers), LOG_LEVEL: "info", SEARCH_CACHE_ENTRIES: "0" });
        // /healthz answers once one worker serves; the primary logs `listening` once they all do.
        if (workers > 1) await waitForWorkers(logPath, offset, workers);
        return server;
      },
      paths: queries.map(searchPath),
      apiKey,
      concurrency: CONCURRENCY,
      budgetSeconds: Math.max(60, options.peerBudgetSeconds),
      throughputSeconds: options.workersSeconds,
      warmupSeconds: options.workersWarmupSeconds,
      rounds: options.workersRounds,
      cores: results.machine.cores,
      client: options.workersClient === "auto" ? (wrkAvailable() ? "wrk" : "autocannon") : options.workersClient,
      log,
    });
    took("workers");
    await save();
  }
  if (has("redis")) {
    mark("redis");
    const url = withoutCredentials(options.redisUrl);
    if (!(await reachable(options.redisUrl, 6379))) {
      results.redis = { url, skipped: `no Redis answered at ${url}` };
      log(`skipped the redis phase: no Redis answered at ${url}`);
    } else {
      // A prefix of this run's own, so the windows it counts meet no one else's (they expire by themselves).
      const server = await start({ REDIS_URL: options.redisUrl, REDIS_KEY_PREFIX: `bench-${process.pid}-${Date.now().toString(36)}:` });
      try {
        const rows = await measureServing({
          origin: server.origin,
          apiKey,
          videoIds: sample.videoIds.slice(0, 200),
          seconds: options.servingSeconds,
          connections: options.servingConnections,
          responsesPath: join(layout.root, "serving-responses-redis.json"),
          log,
          only: "get",
        });
        results.redis = { url, rows };
      } finally {
        await server.stop();
      }
    }
    took("redis");
    await save();
  }
  if (has("dataset")) {
    mark("dataset");
    results.dataset = await measureDataset({ dataDir: layout.dataDir, scratch: join(layout.root, "dataset-scratch"), logsDir: layout.logs, log });
    took("dataset");
    await save();
  }

  if (has("peers")) {
    mark("peers");
    results.peers = await comparePeers({
      artifactsDir,
      queries,
      flexMaxDocs: options.flexMaxDocs,
      budgetSeconds: options.peerBudgetSeconds,
      log,
    });
  }
  if (has("pg-peer")) {
    mark("pg-peer");
    const url = withoutCredentials(options.pgUrl);
    if (!(await reachable(options.pgUrl, 5432))) {
      results.pgPeer = { url, skipped: `no PostgreSQL answered at ${url}` };
      log(`skipped the pg-peer phase: no PostgreSQL answered at ${url}`);
    } else {
      results.pgPeer = await comparePostgres({ artifactsDir, queries, adminUrl: options.pgUrl, maxDocs: options.pgMaxDocs, budgetSeconds: options.peerBudgetSeconds, log });
    }
    took("pg-peer");
    await save();
  }
  if (has("ingest-limits")) {
    mark("ingest-limits");
    const url = withoutCredentials(options.pgUrl);
    if (!(await reachable(options.pgUrl, 5432))) {
      results.ingestLimits = { url, skipped: `no PostgreSQL answered at ${url}` };
      log(`skipped the ingest-limits phase: no PostgreSQL answered at ${url}`);
    } else {
      results.ingestLimits = await measureIngestLimits({
        size: options.size,
        seed: options.seed,
        exits: options.limitsExits,
        budget: options.limitsBudget,
        windowMs: options.limitsWindowMs,
        coolDownMs: 10_000,
        workers: options.limitsWorkers,
        adminUrl: options.pgUrl,
        dir: join(layout.root, "ingest-limits"),
        logsDir: layout.logs,
        log,
      });
    }
    took("ingest-limits");
    await save();
  }
  if (has("semantic")) {
    mark("semantic");
    results.semantic = await measureSemantic({ dir: join(layout.root, "semantic"), seed: options.seed, chunks: options.semanticChunks, exactBudgetSeconds: options.semanticExactSeconds, log });
    took("semantic");
    await save();
  }
  mark("end");
  results.finishedAt = new Date().toISOString();
  await save();
  return results;
}

async function ensureArtifactSet(
  options: BenchOptions,
  layout: ReturnType<typeof benchLayout>,
  build: boolean,
  log: (line: string) => void,
): Promise<(BuildRecord & { reused: boolean }) | undefined> {
  const previous = readBuildRecord(layout.buildRecord);
  const matches = previous !== undefined && previous.size === options.size && previous.seed === options.seed;
  if (hasArtifacts(layout.dataDir) && (options.skipPipeline || matches || !build)) {
    log(`reusing the artifact set in ${layout.dataDir}`);
    return previous ? { ...previous, reused: true } : undefined;
  }
  if (options.skipPipeline || !build) throw new Error(`No artifact set in ${layout.dataDir}; run without --skip-pipeline first`);
  if (options.source !== "direct") {
    const record = await buildViaPipeline(layout.dataDir, layout.buildRecord, {
      size: options.size,
      seed: options.seed,
      logsDir: layout.logs,
      concurrency: 8,
      standinWorkers: options.jobs,
      log,
    });
    return { ...record, reused: false };
  }
  const corpus = await ensureCorpus(layout.corpusDir, { size: options.size, seed: options.seed, jobs: options.jobs, log });
  log(corpus.reused ? `reusing the corpus in ${layout.corpusDir}` : `corpus written in ${corpus.seconds?.toFixed(1)} s`);
  const record = await buildDirect(layout.dataDir, layout.buildRecord, corpus, { size: options.size, seed: options.seed, log });
  return { ...record, reused: false };
}

/** A fresh API key named "bench" (the previous one revoked) in the data directory's key store. */
function benchKey(dataDir: string): string {
  const keyStore = openKeyStore({ dataDir });
  try {
    keyStore.revokeByName("bench");
    return keyStore.create({ plan: "pro", name: "bench" }).key;
  } finally {
    keyStore.close();
  }
}

/** Stored videos with an English primary transcript, and channels, sampled by seed from the popularity ranks. */
function sampleStored(databasePath: string, count: number, seed: number): { videoIds: string[]; channelIds: string[] } {
  const db = new Database(databasePath, { readonly: true, fileMustExist: true });
  try {
    const random = createRandom(seed, 0x5e7);
    const maxId = db.prepare("SELECT max(id) FROM videos").pluck().get() as number;
    const row = db.prepare("SELECT v.video_id FROM videos v JOIN transcripts t ON t.id = v.transcript WHERE v.id = ? AND t.language_code = 'en'").pluck();
    const ids = new Set<string>();
    for (let tries = 0; ids.size < Math.min(count, maxId) && tries < count * 20; tries++) {
      const id = row.get(1 + random.int(maxId)) as string | undefined;
      if (id) ids.add(id);
    }
    const channelIds = db.prepare("SELECT channel_id FROM channels ORDER BY id LIMIT 200").pluck().all() as string[];
    return { videoIds: [...ids], channelIds };
  } finally {
    db.close();
  }
}

async function settle(origin: string): Promise<void> {
  const deadline = performance.now() + 120_000;
  while (performance.now() < deadline) {
    const t0 = performance.now();
    const res = await request(`${origin}/healthz`);
    await res.body.arrayBuffer();
    if (performance.now() - t0 < 50) return;
    await sleep(500);
  }
}

function mib(bytes: number): number {
  return Math.round(bytes / 2 ** 20);
}

export type { BenchQuery };

/** How long the server spent hashing the set at start, from its "artifact set verified" log line. */
export function hashingMs(log: string): number | undefined {
  for (const line of log.split("\n")) {
    if (!line.includes('"artifact set verified"')) continue;
    try {
      const entry = JSON.parse(line) as { msg?: string; ms?: number };
      if (entry.msg === "artifact set verified" && typeof entry.ms === "number") return entry.ms;
    } catch {
      // not a log line of ours
    }
  }
  return undefined;
}
