/** Parses a route's query string and path parameters with its own schemas. */
import type { z } from "zod";
import type { RequestContext } from "./context.js";
import { queryObject } from "./query.js";
import { validate } from "./validate.js";

/**
 * Each schema's answer to an empty query string (its defaults), parsed once: most requests send no
 * query. Kept only where every value is a primitive, frozen, so no request can change another's.
 */
const emptyQueries = new WeakMap<z.ZodObject, Readonly<Record<string, unknown>>>();

export function parseQuery<S extends z.ZodObject>(ctx: RequestContext, schema: S): z.output<S> {
  if (ctx.query.size === 0) {
    const known = emptyQueries.get(schema);
    if (known !== undefined) return known as z.output<S>;
  }
  const parsed = validate(schema, queryObject(ctx.query, Object.keys(schema.shape)), { rootName: "query" });
  if (ctx.query.size === 0 && Object.values(parsed).every((value) => value === null || typeof value !== "object")) {
    const shared = Object.freeze(parsed);
    emptyQueries.set(schema, shared);
    return shared as z.output<S>;
  }
  return parsed;
}

export function parseParams<S extends z.ZodObject>(ctx: RequestContext, schema: S, code?: string): z.output<S> {
  return validate(schema, ctx.params, code === undefined ? { rootName: "path" } : { rootName: "path", code });
}
