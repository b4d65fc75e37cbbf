/**
 * A route: method, path pattern, who may call it, the zod schemas that both
 * validate requests and generate the OpenAPI document, and the handler.
 */
import type { z } from "zod";
import type { Config, Plan } from "../config.js";
import type { Catalog } from "../data/catalog.js";
import type { Logger } from "../log.js";
import type { RepresentationCache } from "./representation-cache.js";
import type { DocumentedProblem } from "../problem/documented-problem.js";
import type { Condition } from "../service-state.js";
import type { TranscriptSource } from "../live/transcript-source.js";
import type { RequestContext } from "../http/context.js";
import type { QueryEmbedders } from "../search/semantic/query-embedders.js";

export interface RouteDeps {
  config: Config;
  catalog: Catalog;
  transcriptSource: TranscriptSource | undefined;
  clock: () => number;
  log: Logger;
  /** Manifest facts, health and readiness for /healthz and /readyz. */
  health: () => { builtAt: string | null; schemaVersion: number | null; condition: Condition; ready: boolean; unreachable: string[] };
  /** The finished OpenAPI document (built once, from the same route list). */
  openapi: () => unknown;
  /** Serialised stored transcripts (server/routes/representation-cache.ts). */
  representations: RepresentationCache;
  /** Query embedders of search by meaning (server/search/semantic/); without, mode=semantic and hybrid are refused. */
  embedders?: QueryEmbedders | undefined;
}

export interface RouteResult {
  /** Default 200. */
  status?: number;
  /** undefined for bodiless responses (304). */
  body?: unknown;
  /** Default JSON; with another type, `body` is a `RawBody`. */
  contentType?: string;
  headers?: Record<string, string>;
}

export interface RouteDoc {
  operationId: string;
  /** The group the operation is listed under (`tags` of the OpenAPI document). */
  tag: ApiTag;
  summary: string;
  description: string;
  /** Path parameters. */
  params?: z.ZodObject;
  query?: z.ZodObject;
  body?: z.ZodType;
  /** Registered (has an id) so it becomes a component. */
  response: z.ZodType;
  responseDescription: string;
  /**
   * Route-specific problems. The document adds the rest from their own tables: unknown or malformed
   * query parameters, auth and rate limit (authenticated routes), the JSON body's (routes with a body),
   * a live fetch's (`liveFetch`) and 500.
   */
  problems: DocumentedProblem[];
  /** Other media types the 200 response may have (a string body each), chosen by parameter or Accept. */
  textResponses?: readonly string[];
  /** The route may fetch a transcript live, and answers with every problem of a live fetch. */
  liveFetch?: boolean;
  /** 200s carry an ETag and Cache-Control allowing reuse; If-None-Match gets 304. */
  etag?: boolean;
  /** When set, the route also answers 503 with a body of the `response` schema, for this reason. */
  unavailable?: string;
}

/** The groups of operations, in the order the document lists them. */
export const API_TAGS = {
  Search: "Full-text search over the stored transcripts.",
  Transcripts: "Transcripts of single videos and of many at once, fetched live when not stored.",
  Channels: "The indexed channels, and the videos of each.",
  Stats: "Counts of what is stored.",
  Service: "The index of the API, health, readiness and this document; no API key needed.",
} as const;

export type ApiTag = keyof typeof API_TAGS;

export interface Route {
  /** Left out of the OpenAPI document: the route speaks its own protocol (JSON-RPC on /mcp), described in docs/mcp.md. */
  ownProtocol?: true;
  method: "GET" | "POST";
  /** `/v1/transcript/:videoId` style. */
  path: string;
  /** false only for /, /v1, /healthz, /readyz and /v1/openapi.json. */
  auth: boolean;
  /** Runs before authentication (the MCP endpoint's Origin rule); refuses by throwing an HttpError. */
  admit?(ctx: RequestContext, config: Config): void;
  /** Plans that may call the route; undefined means every plan. */
  plans?: (config: Config) => readonly Plan[];
  doc: RouteDoc;
  handle(ctx: RequestContext, deps: RouteDeps): Promise<RouteResult> | RouteResult;
}
