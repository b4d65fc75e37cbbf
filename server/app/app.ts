/**
 * The HTTP application: a plain node:http server. For each request: assign a
 * request id → match the route (404/405 before anything else) → authenticate
 * (401, not counted) → count against the rate limit (429) → check the
 * entitlement (403) → run the route → write JSON; any throw goes through the
 * one problem mapping. CORS preflights (when CORS_ORIGINS is set) and
 * GET /metrics are answered before the route table, without a key.
 */
import http from "node:http";
import { performance } from "node:perf_hooks";
import type { Manifest } from "../../pipeline/artifact/contract.js";
import { assertEntitled, authenticate } from "../auth/authenticate.js";
import type { KeyStore } from "../auth/key-store.js";
import type { CatalogProvider } from "../artifact-set/catalog-holder.js";
import type { Config } from "../config.js";
import type { Catalog } from "../data/catalog.js";
import { databaseFault } from "../data/database-fault.js";
import { docsRouteLabel, isDocsPath, serveDocs } from "./docs-page.js";
import { answerClientError } from "../http/client-error.js";
import { cutAtStop, trackConnections } from "../http/connection-drain.js";
import { limitConnectionsPerClient } from "../http/connection-limit.js";
import { Context, type RequestContext } from "../http/context.js";
import { answerPreflight, createCors, isPreflight } from "../http/cors.js";
import { HttpError } from "../problem/http-error.js";
import { loggablePath } from "../http/log-path.js";
import { assertKnownQuery } from "../http/query.js";
import { PROBLEM_CONTENT_TYPE, problemBody, toHttpError } from "../problem/problem.js";
import { requestIdFrom } from "../http/request-id.js";
import { sendJson } from "../http/respond.js";
import { RepresentationCache } from "../routes/representation-cache.js";
import type { Route, RouteDeps } from "../routes/route.js";
import { createRouter } from "../http/router.js";
import { SECURITY_HEADERS } from "../http/security-headers.js";
import { createLogger, errorFields, type Logger } from "../log.js";
import { createMetrics, type Metrics, type ServedSet } from "../metrics/metrics.js";
import { METRICS_PATH, serveMetrics } from "../metrics/serve-metrics.js";
import { buildOpenApiDocument } from "./openapi-document.js";
import { rateLimitedError, rateLimitHeaders, type RateLimiter } from "../rate-limit/rate-limiter.js";
import { ROUTES } from "./route-table.js";
import { ServiceState } from "../service-state.js";
import type { TranscriptSource } from "../live/transcript-source.js";

export const API_VERSION = "1.0.0";

/** The OpenAPI document GET /v1/openapi.json serves (also written out by `npm run lint:openapi`). */
export function servedOpenApiDocument(): Record<string, unknown> {
  return buildOpenApiDocument(ROUTES, { version: API_VERSION });
}

export interface AppOptions {
  config: Config;
  /** A fixed catalog, or a provider whose set may be swapped while serving (each request leases the current one). */
  catalog: Catalog | CatalogProvider<Catalog>;
  keyStore: KeyStore;
  rateLimiter: RateLimiter;
  /** Where transcripts of videos the catalog does not know come from; without it they are 404. */
  transcriptSource?: TranscriptSource;
  /** Milliseconds since the epoch; drives rate-limit windows and key expiry. Default Date.now. */
  clock?: () => number;
  /** Default: JSON lines on stdout at config.logLevel. */
  log?: Logger;
  /** The served artifact set's manifest, reported by /healthz. */
  manifest?: Pick<Manifest, "builtAt" | "schemaVersion">;
  /** Health and readiness for /healthz and /readyz. Default: ready and ok. */
  state?: ServiceState;
  /** A route failed because the database of the catalog it leased is damaged (SQLITE_CORRUPT and kin; database-fault.ts). */
  onDatabaseFault?: (code: string, catalog: Catalog) => void;
  /** What /metrics exposes. Default: a registry of this app's own. */
  metrics?: Metrics;
}

export function createApp(options: AppOptions): http.Server {
  const { config, keyStore, rateLimiter } = options;
  const clock = options.clock ?? Date.now;
  const log = options.log ?? createLogger({ level: config.logLevel });
  const router = createRouter(ROUTES);
  const knownQuery = new Map(ROUTES.map((route) => [route, Object.keys(route.doc.query?.shape ?? {})]));
  const catalogs = catalogProvider(options.catalog);
  let openapi: unknown;
  const state = options.state ?? readyState();
  const cors = createCors(config.corsOrigins);
  const metrics = options.metrics ?? createMetrics(() => catalogs.current as ServedSet);
  const stopObserving = options.transcriptSource?.observe?.((event) => metrics.liveFetch(event));
  const deps: RouteDeps = {
    config,
    catalog: catalogs.current,
    transcriptSource: options.transcriptSource,
    clock,
    log,
    health: () => {
      // After a hot switch the served set's own manifest is the truth, not the one given at start.
      const manifest = (catalogs.current as { manifest?: AppOptions["manifest"] }).manifest ?? options.manifest;
      return { builtAt: manifest?.builtAt ?? null, schemaVersion: manifest?.schemaVersion ?? null, condition: state.condition, ready: state.ready, unreachable: state.unreachable };
    },
    openapi: () => (openapi ??= servedOpenApiDocument()),
    representations: new RepresentationCache(config.responseCacheMb * 1024 * 1024),
  };

  const runRoute = async (ctx: RequestContext, route: Route): Promise<void> => {
    route.admit?.(ctx, config);
    if (route.auth) {
      const key = authenticate(ctx.req, keyStore);
      ctx.key = key;
      const now = clock();
      const decision = await rateLimiter.consume(key.keyId, now);
      Object.assign(ctx.headers, rateLimitHeaders(decision, now));
      if (!decision.allowed) {
        metrics.rateLimited();
        throw rateLimitedError(decision, now);
      }
      assertEntitled(key, now, route.plans?.(config));
    }
    assertKnownQuery(ctx.query, knownQuery.get(route) ?? []);
    const lease = catalogs.acquire();
    let result;
    try {
      result = await route.handle(ctx, { ...deps, catalog: lease.catalog });
    } catch (error) {
      // Still answered as a 500 below; the hook lets the server leave a damaged set.
      const fault = databaseFault(error);
      if (fault !== undefined) options.onDatabaseFault?.(fault, lease.catalog);
      throw error;
    } finally {
      lease.release();
    }
    await sendJson(ctx, { status: result.status ?? 200, body: result.body, headers: result.headers ?? {}, ...(result.contentType ? { contentType: result.contentType } : {}) });
  };

  const sendProblem = async (ctx: RequestContext, thrown: unknown): Promise<void> => {
    const error = toHttpError(thrown);
    if (error.status >= 500) {
      if (ctx.signal.aborted) {
        log.debug("client went away", { requestId: ctx.requestId, ...errorFields(thrown) });
      } else if (error.status === 500) {
        // A bug: the stack is what finds it.
        log.error("request failed", { requestId: ctx.requestId, method: ctx.method, path: loggablePath(ctx.path), ...errorFields(thrown) });
      } else {
        // 502/503/504 are expected when YouTube fails or the fetch queue is full: a line, not two stacks per request.
        const cause = error.cause instanceof Error ? error.cause.message : undefined;
        log.warn("upstream problem", { requestId: ctx.requestId, method: ctx.method, path: loggablePath(ctx.path), status: error.status, code: error.code, cause });
      }
    }
    if (ctx.res.headersSent) {
      ctx.res.destroy();
      return;
    }
    // Headers meant for the success response (ETag, caching) must not leak onto a problem.
    delete ctx.headers["ETag"];
    ctx.headers["Cache-Control"] = "no-store";
    await sendJson(ctx, {
      status: error.status,
      body: problemBody(error, ctx.requestId),
      contentType: PROBLEM_CONTENT_TYPE,
      headers: error.headers,
    });
  };

  /** `refused`: an answer decided before the request reached a route (an oversized body announced with Expect: 100-continue). */
  const handle = async (req: http.IncomingMessage, res: http.ServerResponse, refused?: HttpError): Promise<void> => {
    const startedAt = performance.now();
    const requestId = requestIdFrom(req.headers["x-request-id"]);
    const method = (req.method ?? "GET").toUpperCase();
    const { path, query } = splitTarget(req.url);
    const ctx = new Context(
      req,
      res,
      requestId,
      method,
      path,
      query,
      startedAt,
      { "X-Request-Id": requestId, ...SECURITY_HEADERS, "Cache-Control": "no-store" },
      startedAt + config.requestDeadlineMs,
    );
    /** The route template for the metrics: never the raw path, whose ids would make a series per video. */
    let routeLabel = "unmatched";
    res.on("close", () => {
      if (!res.writableFinished) ctx.clientGone();
      const status = res.headersSent ? String(res.statusCode) : "aborted";
      metrics.request(routeLabel, method, status, (performance.now() - startedAt) / 1000);
    });
    if (cors.enabled) Object.assign(ctx.headers, cors.responseHeaders(req.headers));
    if (config.accessLog) {
      // 'finish' comes once the last byte is handed to the kernel, but node emits it too when the connection is
      // destroyed with bytes still unsent (cut, or reset by the client): then the body was not sent whole.
      let sent = false;
      res.once("finish", () => (sent = !req.socket.destroyed));
      res.on("close", () => {
        log.info("request", {
          requestId,
          method,
          path: loggablePath(ctx.path),
          status: res.statusCode,
          ms: Math.round((performance.now() - startedAt) * 100) / 100,
          keyId: ctx.key?.keyId ?? null,
          // `cut`: the graceful stop destroyed the connection at the end of its grace period (else the client left).
          ...(sent ? {} : { aborted: true, ...(cutAtStop(res) ? { cut: true } : {}) }),
        });
      });
    }

    try {
      // node's own check (requireHostHeader) answers without our headers and problem body.
      if (req.httpVersionMajor === 1 && req.httpVersionMinor >= 1 && req.headers.host === undefined) {
        throw new HttpError(400, "bad_request", "An HTTP/1.1 request must carry a Host header.", { headers: { Connection: "close" } });
      }
      const expectation = req.headers.expect;
      if (expectation !== undefined && expectation.toLowerCase() !== "100-continue") {
        throw new HttpError(417, "expectation_failed", "Only Expect: 100-continue is supported.", { headers: { Connection: "close" } });
      }
      if (refused !== undefined) throw refused;
      if (cors.enabled && isPreflight(method, req.headers)) {
        routeLabel = await answerPreflight(ctx, cors, router);
        return;
      }
      if (ctx.path === METRICS_PATH && config.metrics) {
        routeLabel = METRICS_PATH;
        await serveMetrics(ctx, metrics);
        return;
      }
      // The rendered reference is a page, not an operation of the API: served beside the router.
      if (isDocsPath(ctx.path)) {
        routeLabel = docsRouteLabel(ctx.path) ?? routeLabel;
        return await serveDocs(ctx);
      }
      const match = router.match(method, ctx.path);
      if (match.kind === "none") throw new HttpError(404, "route_not_found", "No such endpoint. See /v1/openapi.json.");
      if (match.kind === "wrong-method") {
        routeLabel = match.template;
        throw new HttpError(405, "method_not_allowed", `This endpoint allows ${match.allow.join(", ")}.`, {
          headers: { Allow: match.allow.join(", ") },
        });
      }
      ctx.params = match.params;
      routeLabel = match.route.path;
      await runRoute(ctx, match.route);
    } catch (thrown) {
      await sendProblem(ctx, thrown);
    }
  };

  const listener = (req: http.IncomingMessage, res: http.ServerResponse, refused?: HttpError): void => {
    handle(req, res, refused).catch((error: unknown) => {
      // Only a failure while writing a problem lands here.
      log.error("response failed", { ...errorFields(error) });
      res.destroy();
    });
  };
  const server = http.createServer(
    {
      maxHeaderSize: config.maxHeaderBytes,
      requireHostHeader: false,
      // node enforces headersTimeout/requestTimeout only when it sweeps its connections (every 30 s by
      // default), so a slowloris could hold a socket for up to 30 s past the timeout; sweep at a tenth of it.
      connectionsCheckingInterval: Math.max(50, Math.min(1_000, Math.floor(Math.min(config.headersTimeoutMs, config.requestTimeoutMs) / 10))),
    },
    listener,
  );
  // Without a listener node answers an unknown Expect with a bare 417; with it, the request gets our problem.
  server.on("checkExpectation", (req, res) => listener(req, res));
  // Without a listener node sends `100 Continue` to every Expect: 100-continue, inviting a body that will be refused:
  // a body announced over MAX_BODY_BYTES gets its 413 at once (and the connection closes, the body unsent).
  server.on("checkContinue", (req, res) => {
    const declared = Number(req.headers["content-length"]);
    if (Number.isFinite(declared) && declared > config.maxBodyBytes) {
      listener(req, res, new HttpError(413, "payload_too_large", `The request body exceeds ${config.maxBodyBytes} bytes.`, { headers: { Connection: "close" } }));
      return;
    }
    res.writeContinue();
    listener(req, res);
  });
  server.on("clientError", answerClientError);
  if (stopObserving) server.on("close", stopObserving);
  limitConnectionsPerClient(server, config.maxConnectionsPerClient);
  // From the start, so a graceful stop knows what each connection has in flight (server/start/shutdown.ts).
  trackConnections(server);
  server.requestTimeout = config.requestTimeoutMs;
  server.headersTimeout = config.headersTimeoutMs;
  server.keepAliveTimeout = config.keepAliveTimeoutMs;
  server.maxConnections = config.maxConnections;
  return server;
}

/**
 * A request target that needs no normalising: non-empty segments of letters,
 * digits, `_` and `-` (no dot segments, escapes, backslashes, or a leading
 * `//` that URL parsing would read as a host), then an optional query of
 * printable ASCII without `#` (URL parsing trims spaces and encodes the rest).
 */
// Each repeated segment ends in its "/", so a long run of letters can be matched one way only:
// `(?:[A-Za-z0-9_-]+\/?)*` backtracked exponentially on such a run followed by a character it refuses.
const PLAIN_TARGET = /^\/(?:[A-Za-z0-9_-]+\/)*[A-Za-z0-9_-]*(?:\?[!"$-~]*)?$/;

/**
 * The path and query of a request target. The common plain target is split
 * as it is; anything else goes through WHATWG URL parsing (dot segments,
 * backslashes, escapes), which gives the same result for a plain one.
 */
export function splitTarget(target: string | undefined): { path: string; query: URLSearchParams } {
  const raw = target ?? "/";
  if (PLAIN_TARGET.test(raw)) {
    const mark = raw.indexOf("?");
    return mark === -1 ? { path: raw, query: new URLSearchParams() } : { path: raw.slice(0, mark), query: new URLSearchParams(raw.slice(mark)) }; // it drops the one leading "?"
  }
  let url: URL;
  try {
    url = new URL(raw, "http://localhost");
  } catch {
    url = new URL("http://localhost/");
  }
  return { path: url.pathname, query: url.searchParams };
}

function readyState(): ServiceState {
  const state = new ServiceState();
  state.markLoaded();
  return state;
}

function catalogProvider(catalog: Catalog | CatalogProvider<Catalog>): CatalogProvider<Catalog> {
  if ("acquire" in catalog && typeof catalog.acquire === "function") return catalog;
  const fixed = catalog as Catalog;
  return { current: fixed, acquire: () => ({ catalog: fixed, release: () => {} }) };
}
