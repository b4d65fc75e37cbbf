/**
 * Middleware in a list, composed once when the app is made: each entry does
 * its one cross-cutting thing to the request and hands it on with
 * `next(ctx)`, or answers it and does not. The chain is built from closures
 * at start, so serving a request allocates nothing for it, and an entry that
 * does its work synchronously returns `next(ctx)` as it is: it costs a call,
 * not an await.
 */
import { Context, type ContextOptions } from "../http/context.js";
import type { HttpError } from "../problem/http-error.js";
import type { Route } from "../routes/route.js";

export type Next<C> = (ctx: C) => Promise<void>;
export type Middleware<C> = (ctx: C, next: Next<C>) => Promise<void>;

/** One handler running `middleware` in order, then `last`. */
export function compose<C>(middleware: readonly Middleware<C>[], last: Next<C>): Next<C> {
  return middleware.reduceRight<Next<C>>((next, entry) => (ctx) => entry(ctx, next), last);
}

export interface ServedContextOptions extends ContextOptions {
  /** An answer decided before the request reached the app (an oversized body announced with Expect: 100-continue). */
  refused?: HttpError | undefined;
}

/** A request as the middleware see it: the handler's context, and what only the app tracks about it. */
export class ServedContext extends Context {
  /** The route template for the metrics: never the raw path, whose ids would make a series per video. */
  routeLabel = "unmatched";
  /** The matched route, once the router has found it. */
  route: Route | undefined;
  readonly refused: HttpError | undefined;

  constructor(options: ServedContextOptions) {
    super(options);
    this.refused = options.refused;
  }
}

/** A request the router has matched to a route. */
export type RoutedContext = ServedContext & { route: Route };
