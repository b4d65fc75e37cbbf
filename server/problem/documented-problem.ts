/** A problem a route can answer with, for the OpenAPI document (each route's `doc.problems`, and the tables of auth, rate limit, JSON body and live fetch). */
export interface DocumentedProblem {
  status: number;
  code: string;
  description: string;
  /** The answer carries Retry-After. */
  retryAfter?: boolean;
}
