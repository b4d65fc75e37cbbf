/**
 * What a request to a route passes through before its handler, in the order
 * createApp lists them: the route's own admission rule, the API key (401, not
 * counted), the rate limit (429), the entitlement (403, after counting), and
 * the query parameters the route knows. Routes without `auth` pass the three
 * key steps untouched. The last step runs the handler on a leased catalog.
 */
import { assertEntitled, authenticate } from "../auth/authenticate.js";
import type { KeyStore } from "../auth/key-store.js";
import type { CatalogProvider } from "../artifact-set/catalog-holder.js";
import type { Config } from "../config.js";
import type { Catalog } from "../data/catalog.js";
import { databaseFault } from "../data/database-fault.js";
import type { Middleware, Next, RoutedContext } from "./middleware.js";
import { assertKnownQuery } from "../http/query.js";
import { sendJson } from "../http/respond.js";
import type { Route, RouteDeps } from "../routes/route.js";
import type { Metrics } from "../metrics/metrics.js";
import { rateLimitedError, rateLimitHeaders, type RateLimitDecision, type RateLimiter } from "../rate-limit/rate-limiter.js";

type Step = Middleware<RoutedContext>;

/** The route's own rule, before authentication (the MCP endpoint's Origin rule). */
export function admit(config: Config): Step {
  return (ctx, next) => {
    ctx.route.admit?.(ctx, config);
    return next(ctx);
  };
}

/** Who is calling: a route with `auth` needs a valid key (401 otherwise, counted against nothing). */
export function apiKey(keyStore: KeyStore): Step {
  return (ctx, next) => {
    if (ctx.route.auth) ctx.key = authenticate(ctx.req, keyStore);
    return next(ctx);
  };
}

export interface RateLimitOptions {
  rateLimiter: RateLimiter;
  clock: () => number;
  metrics: Metrics;
}

/** Each keyed request counts against its key's limit: its headers on the answer, 429 past it. */
export function rateLimit(options: RateLimitOptions): Step {
  const { rateLimiter, clock, metrics } = options;
  const admit = (ctx: RoutedContext, decision: RateLimitDecision, now: number, next: Next<RoutedContext>): Promise<void> => {
    Object.assign(ctx.headers, rateLimitHeaders(decision, now));
    if (!decision.allowed) {
      metrics.rateLimited();
      throw rateLimitedError(decision, now);
    }
    return next(ctx);
  };
  return (ctx, next) => {
    if (ctx.key === undefined) return next(ctx);
    const now = clock();
    const decision = rateLimiter.consume(ctx.key.keyId, now);
    // A decision made at once (in memory, or on a lease) goes on without a promise of its own.
    return decision instanceof Promise ? decision.then((made) => admit(ctx, made, now, next)) : admit(ctx, decision, now, next);
  };
}

export interface EntitlementOptions {
  config: Config;
  clock: () => number;
}

/** A counted key must still be in its subscription, on a plan the route allows (403). */
export function entitlement(options: EntitlementOptions): Step {
  const { config, clock } = options;
  return (ctx, next) => {
    if (ctx.key !== undefined) assertEntitled(ctx.key, clock(), ctx.route.plans?.(config));
    return next(ctx);
  };
}

/** A query parameter the route does not know is a 400, not silently ignored. */
export function knownQuery(routes: readonly Route[]): Step {
  const known = new Map(routes.map((route) => [route, Object.keys(route.doc.query?.shape ?? {})]));
  return (ctx, next) => {
    assertKnownQuery(ctx.query, known.get(ctx.route) ?? []);
    return next(ctx);
  };
}

export interface RunRouteOptions {
  deps: RouteDeps;
  catalogs: CatalogProvider<Catalog>;
  /** A route failed because the database of the catalog it leased is damaged. */
  onDatabaseFault?: ((code: string, catalog: Catalog) => void) | undefined;
}

/** The last step: the handler runs on the catalog it leased (a hot switch waits for it), and its result is written as JSON. */
export function runRoute(options: RunRouteOptions): Next<RoutedContext> {
  const { deps, catalogs, onDatabaseFault } = options;
  return async (ctx) => {
    const lease = catalogs.acquire();
    let result;
    try {
      result = await ctx.route.handle(ctx, { ...deps, catalog: lease.catalog });
    } catch (error) {
      // Still answered as a 500; the hook lets the server leave a damaged set.
      const fault = databaseFault(error);
      if (fault !== undefined) onDatabaseFault?.(fault, lease.catalog);
      throw error;
    } finally {
      lease.release();
    }
    await sendJson(ctx, { status: result.status ?? 200, body: result.body, headers: result.headers ?? {}, ...(result.contentType ? { contentType: result.contentType } : {}) });
  };
}
