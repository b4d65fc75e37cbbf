/**
 * A route's query string parsed by its schema. Most requests send none, so
 * the schema's answer to an empty query is parsed once and shared, frozen;
 * a query that is not empty, or a schema whose defaults are objects, is
 * parsed each time.
 */
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { Context } from "../../server/http/context.js";
import { parseQuery } from "../../server/http/route-input.js";
import { HttpError } from "../../server/problem/http-error.js";

function ctx(query: string): Context {
  return new Context({ req: {} as never, res: {} as never, requestId: "r", method: "GET", path: "/", query: new URLSearchParams(query), startedAt: 0 });
}

describe("parseQuery", () => {
  const Plain = z.object({ lang: z.string().default("en"), limit: z.coerce.number().int().default(10), flag: z.enum(["true", "false"]).optional() });

  it("answers an empty query with the defaults, the same frozen object each time, and a given query with its own values", () => {
    const first = parseQuery(ctx(""), Plain);
    expect(first).toEqual({ lang: "en", limit: 10 });
    const second = parseQuery(ctx(""), Plain);
    expect(second).toBe(first);
    expect(Object.isFrozen(second)).toBe(true);
    expect(parseQuery(ctx("lang=de&limit=3"), Plain)).toEqual({ lang: "de", limit: 3 });
    expect(parseQuery(ctx(""), Plain)).toEqual({ lang: "en", limit: 10 });
    expect(() => parseQuery(ctx("limit=x"), Plain)).toThrow(HttpError);
  });

  it("parses again where a default is an object, and refuses an empty query each time where a parameter is required", () => {
    const Listed = z.object({ tags: z.array(z.string()).default([]) });
    const a = parseQuery(ctx(""), Listed);
    const b = parseQuery(ctx(""), Listed);
    expect(a).toEqual({ tags: [] });
    expect(b).not.toBe(a);
    a.tags.push("x");
    expect(parseQuery(ctx(""), Listed)).toEqual({ tags: [] });
    const Required = z.object({ q: z.string() });
    expect(() => parseQuery(ctx(""), Required)).toThrow(HttpError);
    expect(() => parseQuery(ctx(""), Required)).toThrow(HttpError);
  });
});
