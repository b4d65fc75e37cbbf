/**
 * What every request passes through before it reaches a route, one concern
 * per entry (createApp lists them in order): the headers every answer
 * carries, the metrics, CORS, the access log, the checks of the request
 * itself, and the answers served beside the route table (CORS preflights,
 * /metrics, /docs). The last step matches the route.
 */
import { performance } from "node:perf_hooks";
import { docsRouteLabel, isDocsPath, serveDocs } from "./docs-page.js";
import { cutAtStop } from "../http/connection-drain.js";
import { answerPreflight, isPreflight, type Cors } from "../http/cors.js";
import { HttpError } from "../problem/http-error.js";
import { loggablePath } from "../http/log-path.js";
import type { Middleware, Next, RoutedContext, ServedContext } from "./middleware.js";
import type { Router } from "../http/router.js";
import type { Route } from "../routes/route.js";
import { SECURITY_HEADERS } from "../http/security-headers.js";
import type { Logger } from "../log.js";
import type { Metrics } from "../metrics/metrics.js";
import { METRICS_PATH, serveMetrics } from "../metrics/serve-metrics.js";

type Step = Middleware<ServedContext>;

/** Every answer, problems included, carries its request id and the security headers, and is not stored until a route says otherwise. */
export const standardHeaders: Step = (ctx, next) => {
  const headers = ctx.headers;
  headers["X-Request-Id"] = ctx.requestId;
  Object.assign(headers, SECURITY_HEADERS);
  headers["Cache-Control"] = "no-store";
  return next(ctx);
};

/**
 * When the connection closes: a response left unfinished means the client
 * went away, which aborts the request's signal; and the request is counted
 * and timed under its route's template. One listener for both, so a request
 * costs one closure here.
 */
export function requestMetrics(metrics: Metrics): Step {
  return (ctx, next) => {
    const res = ctx.res;
    res.on("close", () => {
      if (!res.writableFinished) ctx.clientGone();
      const status = res.headersSent ? String(res.statusCode) : "aborted";
      metrics.request(ctx.routeLabel, ctx.method, status, (performance.now() - ctx.startedAt) / 1000);
    });
    return next(ctx);
  };
}

/** The CORS headers of an actual response (CORS_ORIGINS), on every answer. */
export function corsHeaders(cors: Cors): Step {
  return (ctx, next) => {
    Object.assign(ctx.headers, cors.responseHeaders(ctx.req.headers));
    return next(ctx);
  };
}

/** One line per request once its connection closes (ACCESS_LOG). */
export function accessLog(log: Logger): Step {
  return (ctx, next) => {
    const { req, res } = ctx;
    // 'finish' comes once the last byte is handed to the kernel, but node emits it too when the connection is
    // destroyed with bytes still unsent (cut, or reset by the client): then the body was not sent whole.
    let sent = false;
    res.once("finish", () => (sent = !req.socket.destroyed));
    res.on("close", () => {
      log.info("request", {
        requestId: ctx.requestId,
        method: ctx.method,
        path: loggablePath(ctx.path),
        status: res.statusCode,
        ms: Math.round((performance.now() - ctx.startedAt) * 100) / 100,
        keyId: ctx.key?.keyId ?? null,
        // `cut`: the graceful stop destroyed the connection at the end of its grace period (else the client left).
        ...(sent ? {} : { aborted: true, ...(cutAtStop(res) ? { cut: true } : {}) }),
      });
    });
    return next(ctx);
  };
}

/** node's own check (requireHostHeader) answers without our headers and problem body, so it is made here. */
export const requireHost: Step = (ctx, next) => {
  const req = ctx.req;
  if (req.httpVersionMajor === 1 && req.httpVersionMinor >= 1 && req.headers.host === undefined) {
    throw new HttpError(400, "bad_request", "An HTTP/1.1 request must carry a Host header.", { headers: { Connection: "close" } });
  }
  return next(ctx);
};

/**
 * A transfer coding other than chunked alone is refused before anything else is decided: node reads such a
 * body as chunked, so a body sent otherwise would fail mid-parse, and the answer must not depend on which
 * of that failure and the route's own answer comes first.
 */
export const supportedFraming: Step = (ctx, next) => {
  const coding = ctx.req.headers["transfer-encoding"];
  if (coding !== undefined && coding.trim().toLowerCase() !== "chunked") {
    throw new HttpError(400, "bad_request", "Only Transfer-Encoding: chunked is supported.", { headers: { Connection: "close" } });
  }
  return next(ctx);
};

export const supportedExpectation: Step = (ctx, next) => {
  const expectation = ctx.req.headers.expect;
  if (expectation !== undefined && expectation.toLowerCase() !== "100-continue") {
    throw new HttpError(417, "expectation_failed", "Only Expect: 100-continue is supported.", { headers: { Connection: "close" } });
  }
  return next(ctx);
};

/** An answer decided before the request arrived (checkContinue) is given now, with everything above applied. */
export const refusedEarly: Step = (ctx, next) => {
  if (ctx.refused !== undefined) throw ctx.refused;
  return next(ctx);
};

export function corsPreflight(cors: Cors, router: Router): Step {
  const answer = async (ctx: ServedContext): Promise<void> => {
    ctx.routeLabel = await answerPreflight(ctx, cors, router);
  };
  return (ctx, next) => (isPreflight(ctx.method, ctx.req.headers) ? answer(ctx) : next(ctx));
}

/** GET /metrics, without a key (METRICS). */
export function metricsEndpoint(metrics: Metrics): Step {
  return (ctx, next) => {
    if (ctx.path !== METRICS_PATH) return next(ctx);
    ctx.routeLabel = METRICS_PATH;
    return serveMetrics(ctx, metrics);
  };
}

/** The rendered reference is a page, not an operation of the API: served beside the router. */
export const docsPage: Step = (ctx, next) => {
  if (!isDocsPath(ctx.path)) return next(ctx);
  ctx.routeLabel = docsRouteLabel(ctx.path) ?? ctx.routeLabel;
  return serveDocs(ctx);
};

/** The last step: the route table's route for the path and method (404 and 405 here), run through `routed`. */
export function routeTo(router: Router<Route>, routed: Next<RoutedContext>): Next<ServedContext> {
  return (ctx) => {
    const match = router.match(ctx.method, ctx.path);
    if (match.kind === "none") throw new HttpError(404, "route_not_found", "No such endpoint. See /v1/openapi.json.");
    if (match.kind === "wrong-method") {
      ctx.routeLabel = match.template;
      throw new HttpError(405, "method_not_allowed", `This endpoint allows ${match.allow.join(", ")}.`, {
        headers: { Allow: match.allow.join(", ") },
      });
    }
    ctx.params = match.params;
    ctx.routeLabel = match.route.path;
    ctx.route = match.route;
    return routed(ctx as RoutedContext);
  };
}
