/**
 * The HTTP application: a plain node:http server whose requests pass through
 * two lists of middleware. Every request: its standard headers, metrics,
 * CORS headers and access log → checks of the request itself → CORS
 * preflights, GET /metrics and /docs, answered beside the route table
 * without a key → the route (404/405). A request to a route: its admission
 * rule → authenticate (401, not counted) → count against the rate limit
 * (429) → check the entitlement (403) → unknown query parameters (400) →
 * run the handler → write JSON. Any throw goes through the one problem
 * mapping (sendProblem).
 */
import http from "node:http";
import { performance } from "node:perf_hooks";
import type { Manifest } from "../../pipeline/artifact/contract/index.js";
import {
  accessLog,
  corsHeaders,
  corsPreflight,
  docsPage,
  metricsEndpoint,
  refusedEarly,
  requestMetrics,
  requireHost,
  routeTo,
  standardHeaders,
  supportedExpectation,
  supportedFraming,
} from "./app-middleware.js";
import type { KeyStore } from "../auth/key-store.js";
import type { CatalogProvider } from "../artifact-set/catalog-holder.js";
import type { Config } from "../config.js";
import type { Catalog } from "../data/catalog.js";
import { answerClientError } from "../http/client-error.js";
import { trackConnections } from "../http/connection-drain.js";
import { limitConnectionsPerClient } from "../http/connection-limit.js";
import type { RequestContext } from "../http/context.js";
import { createCors } from "../http/cors.js";
import { HttpError } from "../problem/http-error.js";
import { loggablePath } from "../http/log-path.js";
import { compose, ServedContext } from "./middleware.js";
import { PROBLEM_CONTENT_TYPE, problemBody, toHttpError } from "../problem/problem.js";
import { requestIdFrom } from "../http/request-id.js";
import { sendJson } from "../http/respond.js";
import { RepresentationCache } from "../routes/representation-cache.js";
import type { RouteDeps } from "../routes/route.js";
import { createRouter } from "../http/router.js";
import { createLogger, errorFields, type Logger } from "../log.js";
import { createMetrics, type ExitsToMeasure, type Metrics, type ServedSet } from "../metrics/metrics.js";
import { buildOpenApiDocument } from "./openapi-document.js";
import type { RateLimiter } from "../rate-limit/rate-limiter.js";
import { admit, apiKey, entitlement, knownQuery, rateLimit, runRoute } from "./route-middleware.js";
import { ROUTES } from "./route-table.js";
import { ServiceState } from "../service-state.js";
import type { TranscriptSource } from "../live/transcript-source.js";
import type { QueryEmbedders } from "../search/semantic/query-embedders.js";

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
  /** The live fetcher's exits, counted per exit by /metrics. */
  exits?: ExitsToMeasure;
  /** Query embedders of search by meaning; without, mode=semantic and hybrid are refused (409). */
  embedders?: QueryEmbedders;
}

export function createApp(options: AppOptions): http.Server {
  const { config } = options;
  const clock = options.clock ?? Date.now;
  const log = options.log ?? createLogger({ level: config.logLevel });
  const router = createRouter(ROUTES);
  const catalogs = catalogProvider(options.catalog);
  const cors = createCors(config.corsOrigins);
  const metrics = options.metrics ?? createMetrics(() => catalogs.current as ServedSet, options.exits);
  const stopObserving = options.transcriptSource?.observe?.((event) => metrics.liveFetch(event));

  // A new cross-cutting concern is one more entry here, in the place its effect belongs.
  const serveRoute = compose(
    [
      admit(config),
      apiKey(options.keyStore),
      rateLimit({ rateLimiter: options.rateLimiter, clock, metrics }),
      entitlement({ config, clock }),
      knownQuery(ROUTES),
    ],
    runRoute({ deps: routeDeps({ ...options, catalogs, clock, log }), catalogs, onDatabaseFault: options.onDatabaseFault }),
  );
  const serveRequest = compose(
    [
      standardHeaders,
      requestMetrics(metrics),
      ...(cors.enabled ? [corsHeaders(cors)] : []),
      ...(config.accessLog ? [accessLog(log)] : []),
      requireHost,
      supportedFraming,
      supportedExpectation,
      refusedEarly,
      ...(cors.enabled ? [corsPreflight(cors, router)] : []),
      ...(config.metrics ? [metricsEndpoint(metrics)] : []),
      docsPage,
    ],
    routeTo(router, serveRoute),
  );

  /** `refused`: an answer decided before the request reached a route (an oversized body announced with Expect: 100-continue). */
  const handle = async (req: http.IncomingMessage, res: http.ServerResponse, refused?: HttpError): Promise<void> => {
    const ctx = arrive({ req, res, refused, deadlineMs: config.requestDeadlineMs });
    try {
      await serveRequest(ctx);
    } catch (thrown) {
      await sendProblem(ctx, thrown, log);
    }
  };
  const listener = (req: http.IncomingMessage, res: http.ServerResponse, refused?: HttpError): void => {
    handle(req, res, refused).catch((error: unknown) => {
      // Only a failure while writing a problem lands here.
      log.error("response failed", { ...errorFields(error) });
      res.destroy();
    });
  };
  const server = createHttpServer(config, listener);
  if (stopObserving) server.on("close", stopObserving);
  return server;
}

interface RouteDepsOptions extends AppOptions {
  catalogs: CatalogProvider<Catalog>;
  clock: () => number;
  log: Logger;
}

/** What every route handler is given besides its request (the catalog is the one each request leases). */
function routeDeps(options: RouteDepsOptions): RouteDeps {
  const { config, catalogs } = options;
  const state = options.state ?? readyState();
  let openapi: unknown;
  return {
    config,
    catalog: catalogs.current,
    transcriptSource: options.transcriptSource,
    clock: options.clock,
    log: options.log,
    health: () => {
      // After a hot switch the served set's own manifest is the truth, not the one given at start.
      const manifest = (catalogs.current as { manifest?: AppOptions["manifest"] }).manifest ?? options.manifest;
      return { builtAt: manifest?.builtAt ?? null, schemaVersion: manifest?.schemaVersion ?? null, condition: state.condition, ready: state.ready, unreachable: state.unreachable };
    },
    openapi: () => (openapi ??= servedOpenApiDocument()),
    representations: new RepresentationCache(config.responseCacheMb * 1024 * 1024),
    embedders: options.embedders,
  };
}

interface Arrival {
  req: http.IncomingMessage;
  res: http.ServerResponse;
  refused: HttpError | undefined;
  /** REQUEST_DEADLINE_MS. */
  deadlineMs: number;
}

/** The context of a request as it arrives: its id, method, path and query, the time, and the deadline it must be answered by. */
function arrive(arrival: Arrival): ServedContext {
  const { req, res, refused } = arrival;
  const startedAt = performance.now();
  const { path, query } = splitTarget(req.url);
  return new ServedContext({
    req,
    res,
    requestId: requestIdFrom(req.headers["x-request-id"]),
    method: (req.method ?? "GET").toUpperCase(),
    path,
    query,
    startedAt,
    deadline: startedAt + arrival.deadlineMs,
    refused,
  });
}

/** The one place a throw becomes an answer: a problem+json body, logged by how much it says about us. */
async function sendProblem(ctx: RequestContext, thrown: unknown, log: Logger): Promise<void> {
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
}

/** The node:http server with this service's limits, Expect handling and connection tracking. */
function createHttpServer(config: Config, listener: (req: http.IncomingMessage, res: http.ServerResponse, refused?: HttpError) => void): http.Server {
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
