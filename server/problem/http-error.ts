/**
 * The one error type of the HTTP layer. Routes and middleware throw it;
 * `problem.ts` is the one place that turns it (and anything else) into an
 * RFC 9457 problem response.
 */

export interface ParamError {
  /** Parameter name as the client wrote it: `q`, `limit`, `videoIds[3]`. */
  param: string;
  /** What is wrong, never repeating the client's value. */
  message: string;
}

export interface HttpErrorOptions {
  errors?: ParamError[];
  headers?: Record<string, string>;
  /** Extra problem members (e.g. `availableLanguages`); must not hold user input. */
  extensions?: Record<string, unknown>;
  cause?: unknown;
}

export class HttpError extends Error {
  override name = "HttpError";
  readonly status: number;
  readonly code: string;
  readonly detail: string;
  readonly errors: ParamError[] | undefined;
  readonly headers: Record<string, string>;
  readonly extensions: Record<string, unknown>;

  constructor(status: number, code: string, detail: string, options: HttpErrorOptions = {}) {
    super(detail, options.cause === undefined ? undefined : { cause: options.cause });
    this.status = status;
    this.code = code;
    this.detail = detail;
    this.errors = options.errors;
    this.headers = options.headers ?? {};
    this.extensions = options.extensions ?? {};
  }
}

/** A 400 `invalid_parameter` listing each bad parameter. */
export function invalidParameters(errors: ParamError[]): HttpError {
  const names = [...new Set(errors.map((e) => e.param))];
  return new HttpError(400, "invalid_parameter", `Invalid parameter${names.length === 1 ? "" : "s"}: ${names.join(", ")}.`, {
    errors,
  });
}
