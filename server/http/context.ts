/** What a handler knows about the request it serves. */
import type { IncomingMessage, ServerResponse } from "node:http";
import type { KeyRecord } from "../auth/key-record.js";

export interface RequestContext {
  readonly req: IncomingMessage;
  readonly res: ServerResponse;
  readonly requestId: string;
  /** Upper case, HEAD included (routes see GET semantics). */
  readonly method: string;
  /** Path without the query string, as received. */
  readonly path: string;
  readonly query: URLSearchParams;
  /** Path parameters, percent-decoded. */
  params: Record<string, string>;
  /** performance.now() at arrival, for `timing.totalMs`. */
  readonly startedAt: number;
  /** Aborted when the client goes away before the response is complete. */
  readonly signal: AbortSignal;
  /**
   * performance.now() by which the request must be answered (arrival plus
   * REQUEST_DEADLINE_MS); waits for live fetches end there (`untilDeadline`).
   */
  readonly deadline: number;
  /** Set once the API key is verified. */
  key?: KeyRecord;
  /**
   * Response headers gathered while the request is handled, written in one
   * `writeHead` with the response (nothing calls `res.setHeader`).
   */
  readonly headers: Record<string, string | number>;
}

/**
 * The context of a request being served. Its `signal` is a getter of the
 * class, not of each object: V8 keeps an object literal's getter in an
 * accessor pair that it allocates in the old generation, and that pair's
 * pointer to a per-request getter closure kept the closure, the context,
 * the request and the response alive through every scavenge (2-3 MB
 * copied and promoted per scavenge under load, against 0.02-0.2 MB
 * without; BENCHMARKS.md).
 */
export interface ContextOptions {
  req: IncomingMessage;
  res: ServerResponse;
  requestId: string;
  /** Upper case. */
  method: string;
  /** Without the query string. */
  path: string;
  query: URLSearchParams;
  /** performance.now() at arrival. */
  startedAt: number;
  /** The response headers so far. Default: none. */
  headers?: Record<string, string | number>;
  /** performance.now() by which the request must be answered. Default: none (Infinity). */
  deadline?: number;
}

export class Context implements RequestContext {
  readonly req: IncomingMessage;
  readonly res: ServerResponse;
  readonly requestId: string;
  readonly method: string;
  readonly path: string;
  readonly query: URLSearchParams;
  readonly startedAt: number;
  readonly headers: Record<string, string | number>;
  readonly deadline: number;
  params: Record<string, string> = {};
  key?: KeyRecord;
  /** Created on first use: most requests never look at their signal, and an AbortController is not free. */
  #abort: AbortController | undefined;

  /** The options are copied, not kept: the context holds nothing of the object it was made from. */
  constructor(options: ContextOptions) {
    this.req = options.req;
    this.res = options.res;
    this.requestId = options.requestId;
    this.method = options.method;
    this.path = options.path;
    this.query = options.query;
    this.startedAt = options.startedAt;
    this.headers = options.headers ?? {};
    this.deadline = options.deadline ?? Infinity;
  }

  get signal(): AbortSignal {
    return (this.#abort ??= new AbortController()).signal;
  }

  /** The client went away before the response was complete. */
  clientGone(): void {
    (this.#abort ??= new AbortController()).abort(new Error("client closed the connection"));
  }
}
