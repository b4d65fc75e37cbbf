/**
 * Opt-in CORS (CORS_ORIGINS): browsers on the listed origins may call the API
 * with an API key in a header. Credentials (cookies, HTTP auth) are never
 * allowed: the key travels in X-API-Key or Authorization, which the page sets
 * itself. A disallowed origin gets no Access-Control-* header at all, so the
 * browser withholds the response from the page; its preflight gets a 403.
 */
import type { IncomingHttpHeaders } from "node:http";
import type { RequestContext } from "./context.js";
import { HttpError } from "../problem/http-error.js";
import { sendJson } from "./respond.js";
import type { Router } from "./router.js";

/** Request headers a page may send (a preflight lists those it wants). */
export const CORS_ALLOW_HEADERS = "X-API-Key, Content-Type, Authorization, If-None-Match, X-Request-Id, Accept, Mcp-Protocol-Version";
/** Response headers a page may read beyond the CORS-safelisted ones. */
export const CORS_EXPOSE_HEADERS = [
  "X-RateLimit-Limit",
  "X-RateLimit-Remaining",
  "X-RateLimit-Reset",
  "RateLimit-Policy",
  "RateLimit",
  "Retry-After",
  "ETag",
  "X-Request-Id",
].join(", ");
/** How long a browser may reuse a preflight's answer, in seconds (browsers cap it: Chromium at 7200). */
export const CORS_MAX_AGE_SECONDS = 600;

export interface Cors {
  /** Whether CORS is on at all (CORS_ORIGINS not empty). */
  readonly enabled: boolean;
  /** The Access-Control-Allow-Origin value for a request from `origin`, or undefined when that origin is not allowed. */
  allowOrigin(origin: string | undefined): string | undefined;
  /** The CORS headers of an actual (non-preflight) response to a request with these headers. */
  responseHeaders(headers: IncomingHttpHeaders): Record<string, string>;
  /** The headers of a preflight answer from an allowed origin, for a resource allowing `methods`. */
  preflightHeaders(allowOrigin: string, methods: readonly string[]): Record<string, string>;
}

/** `origins`: exact origins (scheme, host and port, as browsers send them), or ["*"] for any; empty turns CORS off. */
export function createCors(origins: readonly string[]): Cors {
  const any = origins.includes("*");
  const allowed = new Set(origins);
  const enabled = origins.length > 0;
  // With a list, the answer depends on the Origin header, so caches must key on it; with "*" it does not.
  const vary: Record<string, string> = enabled && !any ? { Vary: "Origin" } : {};
  const allowOrigin = (origin: string | undefined): string | undefined => {
    if (!enabled || origin === undefined || origin === "") return undefined;
    if (any) return "*";
    return allowed.has(origin) ? origin : undefined;
  };
  return {
    enabled,
    allowOrigin,
    responseHeaders(headers) {
      const origin = allowOrigin(singleHeader(headers.origin));
      if (origin === undefined) return { ...vary };
      return { ...vary, "Access-Control-Allow-Origin": origin, "Access-Control-Expose-Headers": CORS_EXPOSE_HEADERS };
    },
    preflightHeaders(origin, methods) {
      return {
        ...vary,
        "Access-Control-Allow-Origin": origin,
        "Access-Control-Allow-Methods": methods.join(", "),
        "Access-Control-Allow-Headers": CORS_ALLOW_HEADERS,
        "Access-Control-Max-Age": String(CORS_MAX_AGE_SECONDS),
      };
    },
  };
}

/** A CORS preflight: OPTIONS naming the method the page wants to use. */
export function isPreflight(method: string, headers: IncomingHttpHeaders): boolean {
  return method === "OPTIONS" && headers.origin !== undefined && headers["access-control-request-method"] !== undefined;
}

function singleHeader(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value;
}

/**
 * Answers a preflight: 204 with what the page may send, for a known path and
 * an allowed origin; 404 for an unknown path, 403 for an origin not allowed.
 * Returns the path's template (for the metrics).
 */
export async function answerPreflight(ctx: RequestContext, cors: Cors, router: Router): Promise<string> {
  const match = router.match("OPTIONS", ctx.path);
  if (match.kind !== "wrong-method") throw new HttpError(404, "route_not_found", "No such endpoint. See /v1/openapi.json.");
  const origin = cors.allowOrigin(singleHeader(ctx.req.headers.origin));
  if (origin === undefined) throw new HttpError(403, "origin_not_allowed", "This origin may not call the API from a browser (CORS_ORIGINS).");
  delete ctx.headers["Access-Control-Expose-Headers"];
  await sendJson(ctx, { status: 204, body: undefined, headers: cors.preflightHeaders(origin, match.allow) });
  return match.template;
}
