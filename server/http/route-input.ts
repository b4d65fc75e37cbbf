/** Parses a route's query string and path parameters with its own schemas. */
import type { z } from "zod";
import type { RequestContext } from "./context.js";
import { queryObject } from "./query.js";
import { validate } from "./validate.js";

export function parseQuery<S extends z.ZodObject>(ctx: RequestContext, schema: S): z.output<S> {
  return validate(schema, queryObject(ctx.query, Object.keys(schema.shape)), { rootName: "query" });
}

export function parseParams<S extends z.ZodObject>(ctx: RequestContext, schema: S, code?: string): z.output<S> {
  return validate(schema, ctx.params, code === undefined ? { rootName: "path" } : { rootName: "path", code });
}
