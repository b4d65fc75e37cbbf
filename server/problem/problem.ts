/**
 * Maps any thrown value to an RFC 9457 `application/problem+json` body:
 * `HttpError` keeps its status and code, everything else becomes a 500
 * `internal_error` whose stack is logged and never sent.
 */
import { STATUS_CODES } from "node:http";
import { HttpError, type ParamError } from "./http-error.js";

export const PROBLEM_CONTENT_TYPE = "application/problem+json";
export const PROBLEM_TYPE_PREFIX = "urn:transcript-service:problem:";

export interface Problem {
  type: string;
  title: string;
  status: number;
  detail: string;
  code: string;
  requestId: string;
  errors?: ParamError[];
  [extension: string]: unknown;
}

export function toHttpError(error: unknown): HttpError {
  if (error instanceof HttpError) return error;
  return new HttpError(500, "internal_error", "An unexpected error occurred. Quote the requestId when reporting it.", {
    cause: error,
  });
}

export function problemBody(error: HttpError, requestId: string): Problem {
  const problem: Problem = {
    type: `${PROBLEM_TYPE_PREFIX}${error.code}`,
    title: STATUS_CODES[error.status] ?? "Error",
    status: error.status,
    detail: error.detail,
    code: error.code,
    requestId,
  };
  if (error.errors !== undefined && error.errors.length > 0) problem.errors = error.errors;
  // Extensions come last and can never overwrite a standard member.
  for (const [name, value] of Object.entries(error.extensions)) if (!(name in problem)) problem[name] = value;
  return problem;
}
