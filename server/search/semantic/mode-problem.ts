/**
 * The problems of a semantic or hybrid search that cannot be answered, as
 * REST and MCP give them: the served set has no vectors, or this server
 * cannot embed queries like them (409: keyword search works, and will
 * until the set or the settings change); the query embedder failed (503,
 * Retry-After: it timed out, answered 5xx or vectors of the wrong length).
 */
import { EmbedderError } from "../../../pipeline/embeddings/embedder.js";
import type { DocumentedProblem } from "../../problem/documented-problem.js";
import { HttpError } from "../../problem/http-error.js";
import { SemanticUnavailable } from "./mode-search.js";

export const EMBEDDER_RETRY_AFTER_SECONDS = 5;

export const MODE_PROBLEMS: DocumentedProblem[] = [
  { status: 409, code: "no_vectors", description: "mode=semantic or hybrid, but the served set was built without vectors; mode=keyword works." },
  {
    status: 409,
    code: "embedder_mismatch",
    description: "mode=semantic or hybrid, but this server cannot embed queries like the set's vectors (another model, or none configured); the detail names both; mode=keyword works.",
  },
  {
    status: 503,
    code: "embedder_unavailable",
    description: "mode=semantic or hybrid, and the query embedder failed (timed out, answered an error, or gave vectors of the wrong length); the detail says which; mode=keyword works.",
    retryAfter: true,
  },
];

/** `error` as the problem a client gets, or itself when it is not a semantic search's failure. */
export function modeProblem(error: unknown): unknown {
  if (error instanceof SemanticUnavailable) return new HttpError(409, error.reason, error.message);
  if (error instanceof EmbedderError) {
    return new HttpError(503, "embedder_unavailable", `The query could not be embedded for semantic search: ${error.message}. mode=keyword works.`, {
      headers: { "Retry-After": String(EMBEDDER_RETRY_AFTER_SECONDS) },
    });
  }
  return error;
}
