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
  /** Set once the API key is verified. */
  key?: KeyRecord;
  /**
   * Response headers gathered while the request is handled, written in one
   * `writeHead` with the response (nothing calls `res.setHeader`).
   */
  readonly headers: Record<string, string | number>;
}
