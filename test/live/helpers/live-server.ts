/**
 * A server wired the way `npm start` wires it (openRuntime + createApp), on
 * port 0, over a real artifact set published into a temp DATA_DIR, with live
 * fetches going to a local YouTube stand-in through YOUTUBE_ORIGIN.
 */
import { mkdtempSync, rmSync } from "node:fs";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import { buildArtifacts } from "../../../pipeline/build/build-artifacts.js";
import type { VectorsOption } from "../../../pipeline/vectors/embed-step.js";
import type { VideoRecord } from "../../../pipeline/artifact/contract/contract.js";
import { newBuildDir, publishBuild } from "../../../pipeline/publish/publish.js";
import { startStandin, type Standin } from "../../../scripts/youtube-standin/server.js";
import { createApp } from "../../../server/app/app.js";
import { openKeyStore } from "../../../server/auth/key-store.js";
import { loadConfig, type Config } from "../../../server/config.js";
import { createLogger } from "../../../server/log.js";
import { createMemoryRateLimiter } from "../../../server/rate-limit/memory-rate-limiter.js";
import { openRuntime, type Runtime, type RuntimeOptions } from "../../../server/start/runtime.js";
import { artifactRecords, upstreamCorpus } from "./live-corpus.js";
import { QueryEmbedders } from "../../../server/search/semantic/query-embedders.js";

export interface LiveServer {
  baseUrl: string;
  key: string;
  dataDir: string;
  config: Config;
  runtime: Runtime;
  standin: Standin;
  /** Parsed JSON log lines of the server. */
  logs: Record<string, any>[];
  close(): Promise<void>;
}

export interface LiveServerOptions {
  env?: Record<string, string>;
  records?: VideoRecord[];
  runtime?: Partial<Omit<RuntimeOptions, "log">>;
  /** Share a stand-in between servers; default: a new one, closed with the server. */
  standin?: Standin;
  /** Serve this DATA_DIR as it is (kept on close); default: a new one with `records` published, removed on close. */
  dataDir?: string;
  /** Runs on the DATA_DIR before the server opens it (e.g. to damage or add a set). */
  prepare?: (dataDir: string) => Promise<void> | void;
}

/** Builds `records` into a new build directory of `dataDir` and points `current` at it. */
export async function publishRecords(dataDir: string, records: VideoRecord[], liveSeq = 0, vectors?: VectorsOption): Promise<string> {
  const dir = newBuildDir(dataDir);
  await buildArtifacts({ records, outDir: dir, dataset: "live-test", liveSeq, ...(vectors ? { vectors } : {}) });
  await publishBuild(dataDir, dir);
  return dir;
}

export async function startLiveServer(options: LiveServerOptions = {}): Promise<LiveServer> {
  const ownDataDir = options.dataDir === undefined;
  const dataDir = options.dataDir ?? mkdtempSync(path.join(tmpdir(), "live-data-"));
  if (ownDataDir) await publishRecords(dataDir, options.records ?? artifactRecords());
  await options.prepare?.(dataDir);
  const standin = options.standin ?? (await startStandin({ corpus: upstreamCorpus() }));
  const config = loadConfig({
    DATA_DIR: dataDir,
    ACCESS_LOG: "off",
    LOG_LEVEL: "debug",
    RATE_LIMIT_PER_MINUTE: "1000000",
    YOUTUBE_ORIGIN: standin.origin,
    YOUTUBE_TIMEOUT_MS: "3000",
    ...options.env,
  });
  const logs: Record<string, any>[] = [];
  const log = createLogger({ level: config.logLevel, write: (line) => logs.push(JSON.parse(line) as Record<string, any>) });
  // Short backoff between blocked retries keeps the tests quick; the retry logic is the real one.
  let runtime: Runtime;
  try {
    runtime = await openRuntime(config, { log, client: { backoffBaseMs: 20, backoffMaxMs: 100 }, ...options.runtime });
  } catch (error) {
    if (options.standin === undefined) await standin.close();
    if (ownDataDir) rmSync(dataDir, { recursive: true, force: true });
    throw Object.assign(error as Error, { logs });
  }
  const keyStore = openKeyStore({ dataDir });
  const key = keyStore.create({ plan: "pro", name: "live-test" }).key;
  const server = createApp({
    config,
    catalog: runtime.catalogs,
    keyStore,
    ...(runtime.fetcher ? { transcriptSource: runtime.fetcher } : {}),
    ...(runtime.exits ? { exits: runtime.exits } : {}),
    rateLimiter: createMemoryRateLimiter({ limit: config.rateLimitPerMinute }),
    log,
    state: runtime.state,
    onDatabaseFault: (code, catalog) => void runtime.databaseFault(code, catalog),
    // As npm start makes them: from EMBEDDER and EMBEDDINGS_*.
    embedders: new QueryEmbedders(config),
  });
  runtime.state.markLoaded();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    baseUrl: `http://127.0.0.1:${port}`,
    key,
    dataDir,
    config,
    runtime,
    standin,
    logs,
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await runtime.close();
      keyStore.close();
      if (options.standin === undefined) await standin.close();
      if (ownDataDir) rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
