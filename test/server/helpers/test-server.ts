/**
 * A real server on port 0 over a real artifact set (built by the real
 * pipeline into a temp dir) and a real key store in a temp DATA_DIR.
 */
import { mkdtempSync, rmSync } from "node:fs";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import { buildArtifacts } from "../../../pipeline/build/build-artifacts.js";
import type { Manifest } from "../../../pipeline/artifact/contract/contract.js";
import { createApp } from "../../../server/app/app.js";
import { openKeyStore, type KeyStore } from "../../../server/auth/key-store.js";
import { loadConfig, type Config } from "../../../server/config.js";
import { openCatalog, type ArtifactCatalog } from "../../../server/artifact-set/artifact-catalog.js";
import { LiveStore } from "../../../server/live-store/live-store.js";
import { createLogger } from "../../../server/log.js";
import { createMemoryRateLimiter } from "../../../server/rate-limit/memory-rate-limiter.js";
import type { RateLimiter } from "../../../server/rate-limit/rate-limiter.js";
import type { TranscriptSource } from "../../../server/live/transcript-source.js";
import { fixtureRecords } from "./fixture-records.js";
import { QueryEmbedders } from "../../../server/search/semantic/query-embedders.js";

export interface Artifacts {
  dir: string;
  manifest: Manifest;
  cleanup(): void;
}

export async function buildFixtureArtifacts(): Promise<Artifacts> {
  const root = mkdtempSync(path.join(tmpdir(), "server-artifacts-"));
  const dir = path.join(root, "current");
  const { manifest } = await buildArtifacts({ records: fixtureRecords(), outDir: dir, dataset: "test" });
  return { dir, manifest, cleanup: () => rmSync(root, { recursive: true, force: true }) };
}

export interface TestKeys {
  pro: string;
  free: string;
  expired: string;
  revoked: string;
}

export interface TestServer {
  baseUrl: string;
  keys: TestKeys;
  keyStore: KeyStore;
  catalog: ArtifactCatalog;
  config: Config;
  /** JSON log lines written by the server. */
  logs: string[];
  close(): Promise<void>;
}

export interface StartOptions {
  artifacts: Artifacts;
  env?: Record<string, string>;
  clock?: () => number;
  rateLimiter?: RateLimiter;
  transcriptSource?: TranscriptSource;
  /** Settings beyond what the environment sets (e.g. one another branch adds). */
  configure?: (config: Config) => Config;
  /** A live store in the data directory, searched beside the set (`catalog.storeLive` fills it). */
  live?: boolean;
}

export async function startTestServer(options: StartOptions): Promise<TestServer> {
  const dataDir = mkdtempSync(path.join(tmpdir(), "server-data-"));
  const loaded = loadConfig({ DATA_DIR: dataDir, ACCESS_LOG: "off", LOG_LEVEL: "debug", ...options.env });
  const config = options.configure?.(loaded) ?? loaded;
  const keyStore = openKeyStore({ dataDir });
  const live = options.live ? LiveStore.open(path.join(dataDir, "live.db")) : undefined;
  const catalog = openCatalog({ dir: options.artifacts.dir, ...(live ? { live } : {}) });
  const keys: TestKeys = {
    pro: keyStore.create({ plan: "pro", name: "pro" }).key,
    free: keyStore.create({ plan: "free", name: "free" }).key,
    expired: keyStore.create({ plan: "pro", name: "expired", expiresAt: "2001-01-01T00:00:00.000Z" }).key,
    revoked: "",
  };
  const revoked = keyStore.create({ plan: "pro", name: "revoked" });
  keyStore.revoke(revoked.record.keyId);
  keys.revoked = revoked.key;

  const logs: string[] = [];
  const server = createApp({
    config,
    catalog,
    keyStore,
    rateLimiter: options.rateLimiter ?? createMemoryRateLimiter({ limit: config.rateLimitPerMinute }),
    ...(options.clock ? { clock: options.clock } : {}),
    ...(options.transcriptSource ? { transcriptSource: options.transcriptSource } : {}),
    log: createLogger({ level: config.logLevel, write: (line) => logs.push(line) }),
    manifest: catalog.manifest,
    // As npm start makes them: from EMBEDDER and EMBEDDINGS_* (none configured: semantic search refused).
    embedders: new QueryEmbedders(config),
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    baseUrl: `http://127.0.0.1:${port}`,
    keys,
    keyStore,
    catalog,
    config,
    logs,
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      catalog.close();
      live?.close();
      keyStore.close();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
