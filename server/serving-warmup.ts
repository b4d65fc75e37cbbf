/**
 * Requests served once at start, before the server listens: the warm-up
 * searches (search/memory/search-warmup.ts) sent again over HTTP to an app
 * of the same code (createApp) on a loopback port of its own, so that a
 * fresh process has compiled the response path (parsing, routing, query
 * validation, serialising a page of hits, writing it) before the first
 * user's request. Without them a fresh server's first few hundred searches
 * each cost noticeably more than later ones (docs/search.md).
 *
 * The warm-up app has a key of its own, random and held in memory only, no
 * rate limit, its own metrics and a silent log, and no live fetcher; it is
 * closed before the server listens, and the caller empties the result cache
 * afterwards: nothing of it is kept or counted for the users.
 */
import { randomBytes, timingSafeEqual } from "node:crypto";
import type http from "node:http";
import type { AddressInfo } from "node:net";
import { createApp } from "./app.js";
import type { CatalogProvider } from "./artifact-set/catalog-holder.js";
import type { KeyRecord } from "./auth/key-record.js";
import type { KeyStore } from "./auth/key-store.js";
import type { Config } from "./config.js";
import type { Catalog, SearchParams } from "./data/catalog.js";
import { createLogger } from "./log.js";
import { createMemoryRateLimiter } from "./rate-limit/memory-rate-limiter.js";

export interface ServingWarmUpOptions {
  config: Config;
  catalog: Catalog | CatalogProvider<Catalog>;
  /** The searches to send, in order (the catalog's warm-up searches). */
  searches: readonly SearchParams[];
  /** Requests in flight (default 4). */
  concurrency?: number;
  /** No request is sent after this many milliseconds (default 3000). */
  budgetMs?: number;
}

export interface ServingWarmth {
  /** Requests answered. */
  requests: number;
  /** Those not answered 200. */
  failed: number;
  ms: number;
}

/** The path of a search request for `params`, as a client sends it. */
export function searchRequestPath(params: SearchParams): string {
  const query = new URLSearchParams({ q: params.q, limit: String(params.limit), offset: String(params.offset) });
  if (params.channel !== undefined) query.set("channel", params.channel);
  if (params.minViews !== undefined) query.set("minViews", String(params.minViews));
  return `/v1/search?${query.toString()}`;
}

export async function warmServing(options: ServingWarmUpOptions): Promise<ServingWarmth> {
  const started = performance.now();
  const key = `warmup_${randomBytes(24).toString("hex")}`;
  const server = createApp({
    config: options.config,
    catalog: options.catalog,
    keyStore: oneKeyStore(key),
    rateLimiter: createMemoryRateLimiter({ limit: Number.MAX_SAFE_INTEGER }),
    log: createLogger({ level: "silent" }),
  });
  // exclusive: a worker of a cluster listens on a port of its own, not through the primary's shared one.
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen({ port: 0, host: "127.0.0.1", exclusive: true }, () => {
      server.off("error", reject);
      resolve();
    });
  });
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const deadline = started + (options.budgetMs ?? 3000);
  const paths = options.searches.map(searchRequestPath);
  let next = 0;
  let requests = 0;
  let failed = 0;
  const sender = async (): Promise<void> => {
    while (next < paths.length && performance.now() < deadline) {
      const path = paths[next++]!;
      try {
        const response = await fetch(origin + path, { headers: { "x-api-key": key } });
        await response.arrayBuffer();
        if (response.status !== 200) failed++;
      } catch {
        failed++;
      }
      requests++;
    }
  };
  try {
    await Promise.all(Array.from({ length: Math.max(1, options.concurrency ?? 4) }, sender));
  } finally {
    await closeNow(server);
  }
  return { requests, failed, ms: performance.now() - started };
}

/** Closes the server and every connection still open to it. */
function closeNow(server: http.Server): Promise<void> {
  return new Promise((resolve) => {
    server.close(() => resolve());
    server.closeAllConnections();
  });
}

/** A key store that knows one key, the warm-up's, and keeps nothing. */
export function oneKeyStore(key: string): KeyStore {
  const expected = Buffer.from(key);
  const record: KeyRecord = { keyId: "00000000", name: "serving warm-up", plan: "pro", createdAt: new Date().toISOString(), expiresAt: null, revokedAt: null };
  const refuse = (): never => {
    throw new Error("the serving warm-up's key store holds only its own key");
  };
  return {
    verify: (presented) => {
      const given = Buffer.from(presented);
      return given.length === expected.length && timingSafeEqual(given, expected) ? record : undefined;
    },
    create: refuse,
    list: () => [record],
    revoke: () => false,
    revokeByName: () => 0,
    close: () => undefined,
  };
}
