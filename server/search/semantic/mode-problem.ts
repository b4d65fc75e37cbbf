/**
 * The problems of a semantic or hybrid search that cannot be answered, as
 * REST and MCP give them: the served set has no vectors, or this server
 * cannot embed queries like them (409: keyword search works, and will
 * until the set or the settings change). A query embedder that fails (it
 * timed out, answered an error or vectors of the wrong length) is not a
 * problem of the request: the search answers with keyword results and
 * says so (`embedderFallback`).
 */
import { EmbedderError } from "../../../pipeline/embeddings/embedder.js";
import type { DocumentedProblem } from "../../problem/documented-problem.js";
import { HttpError } from "../../problem/http-error.js";
import { SemanticUnavailable } from "./mode-search.js";

export const MODE_PROBLEMS: DocumentedProblem[] = [
  { status: 409, code: "no_vectors", description: "mode=semantic or hybrid, but the served set was built without vectors; mode=keyword works." },
  {
    status: 409,
    code: "embedder_mismatch",
    description: "mode=semantic or hybrid, but this server cannot embed queries like the set's vectors (another model, or none configured); the detail names both; mode=keyword works.",
  },
];

/** `error` as the problem a client gets, or itself when it is not a semantic search's refusal. */
export function modeProblem(error: unknown): unknown {
  if (error instanceof SemanticUnavailable) return new HttpError(409, error.reason, error.message);
  return error;
}

/** What a search answered with keyword results tells, when the query embedder failed; undefined for any other error. */
export function embedderFallback(error: unknown): { mode: "keyword"; code: "embedder_unavailable"; detail: string } | undefined {
  if (!(error instanceof EmbedderError)) return undefined;
  return {
    mode: "keyword",
    code: "embedder_unavailable",
    detail: `The query could not be embedded for semantic search (${error.message}); these are keyword search's results. The mode asked for may answer again later.`,
  };
}
