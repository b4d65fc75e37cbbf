/**
 * Practice requests before a process is ready. The start-up warm-up's
 * searches (search/memory/search-warmup.ts) compile the search engine's
 * paths, but not what runs around a search: the HTTP parser, routing, the
 * query's validation, the response's JSON and its write. Without practice a
 * fresh process pays for those on its first few hundred requests, which then
 * queue behind each other (docs/search-memory.md).
 *
 * So each process first answers practice searches through an app of its own:
 * the same routes over the same catalog, with a key and a rate limit that no
 * one else holds, no live fetches and no access log, on a loopback port bound
 * for the practice alone and closed after it. Nothing of the
 * service's own state is touched: its key store, its rate limits and its
 * metrics never see these requests.
 */
import http from "node:http";
import type { AddressInfo } from "node:net";
import { createApp } from "../app/app.js";
import type { CatalogProvider } from "../artifact-set/catalog-holder.js";
import { generateKey, generateKeyId } from "../auth/api-key.js";
import type { KeyRecord } from "../auth/key-record.js";
import type { KeyStore } from "../auth/key-store.js";
import type { Config } from "../config.js";
import type { Catalog, SearchParams } from "../data/catalog.js";
import type { Logger } from "../log.js";
import { createMemoryRateLimiter } from "../rate-limit/memory-rate-limiter.js";
import { searchRequestPath } from "../routes/search.js";

/** Practice requests in flight at once: several, so requests interleave on the process as under load. */
const CONCURRENCY = 4;

export interface PracticeOptions {
  config: Config;
  catalog: Catalog | CatalogProvider<Catalog>;
  /** The searches to send, each once. */
  searches: readonly SearchParams[];
  log: Logger;
  /** The most time the practice may take (default 3 s); requests not sent by then are left out. */
  budgetMs?: number;
}

export interface PracticeOutcome {
  /** Requests answered 200. */
  answered: number;
  /** Requests answered otherwise, or not at all. */
  failed: number;
  ms: number;
  /** The loopback port the practice used; closed when the practice returns. */
  port: number;
}

/** Sends the practice searches to an app of their own over loopback and closes it; never rejects. */
export async function practiceServing(options: PracticeOptions): Promise<PracticeOutcome> {
  const started = performance.now();
  const key = generateKey(generateKeyId());
  const record: KeyRecord = { keyId: "practice", name: "practice", plan: "pro", createdAt: new Date().toISOString(), expiresAt: null, revokedAt: null };
  const app = createApp({
    config: { ...options.config, accessLog: false },
    catalog: options.catalog,
    keyStore: practiceKeyStore(key, record),
    rateLimiter: createMemoryRateLimiter({ limit: Math.max(1, options.searches.length) }),
    log: options.log,
  });
  const agent = new http.Agent({ keepAlive: true, maxSockets: CONCURRENCY });
  let answered = 0;
  let failed = 0;
  let port = 0;
  try {
    // exclusive: a worker binds this port itself, not through the primary's shared handle.
    await new Promise<void>((resolve, reject) => {
      app.once("error", reject);
      app.listen({ port: 0, host: "127.0.0.1", exclusive: true }, resolve);
    });
    port = (app.address() as AddressInfo).port;
    const deadline = started + (options.budgetMs ?? 3000);
    let next = 0;
    const sender = async () => {
      while (next < options.searches.length && performance.now() < deadline) {
        const path = searchRequestPath(options.searches[next++]!);
        if ((await get(agent, port, path, key, Math.max(1, Math.ceil(deadline - performance.now())))) === 200) answered++;
        else failed++;
      }
    };
    await Promise.all(Array.from({ length: CONCURRENCY }, sender));
  } catch (error) {
    options.log.warn("practice requests failed; serving without them", { message: error instanceof Error ? error.message : String(error) });
  } finally {
    agent.destroy();
    app.closeAllConnections();
    await new Promise<void>((resolve) => (app.listening ? app.close(() => resolve()) : resolve()));
  }
  return { answered, failed, ms: performance.now() - started, port };
}

/** Status of a GET, its body read to the end; 0 when the request fails or takes longer than `timeoutMs`. */
function get(agent: http.Agent, port: number, path: string, key: string, timeoutMs: number): Promise<number> {
  return new Promise((resolve) => {
    const req = http.get({ host: "127.0.0.1", port, path, agent, headers: { "x-api-key": key }, signal: AbortSignal.timeout(timeoutMs) }, (res) => {
      res.resume();
      res.on("end", () => resolve(res.statusCode ?? 0));
      res.on("error", () => resolve(0));
    });
    req.on("error", () => resolve(0));
  });
}

/** A key store that knows one key and changes nothing. */
function practiceKeyStore(key: string, record: KeyRecord): KeyStore {
  return {
    create: () => {
      throw new Error("the practice key store creates no keys");
    },
    verify: (presented) => (presented === key ? record : undefined),
    list: () => [record],
    revoke: () => false,
    revokeByName: () => 0,
    close: () => {},
  };
}
