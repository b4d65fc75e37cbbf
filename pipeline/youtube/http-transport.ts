/**
 * One upstream HTTP call, through the exit the pool hands out (exits/):
 * a proxy on a fresh connection each time (so a rotating proxy can give
 * every call another exit IP), or the direct route over a shared keep-alive
 * pool (a new TCP connection per call would only cost time). The answer is
 * checked for a block (exits/classify-answer.ts) and the exit told how the
 * request went. A hard time limit covers headers and body, and a cap on the
 * body size keeps a runaway response from exhausting memory. Network
 * failures come out as `YouTubeError`s.
 */
import { Agent, ProxyAgent, request, type Dispatcher } from "undici";
import { YouTubeError } from "./errors.js";
import { classifyAnswer } from "./exits/classify-answer.js";
import type { ExitPool } from "./exits/exit-pool.js";
import type { ExitOutcome } from "./exits/exit-state-store.js";

export interface TransportOptions {
  /** The exits calls leave through (paced, rested after blocks, taken out when dead). */
  exits: ExitPool;
  /** Longest wait for a free exit before a call fails (`rate_limited` or `connection_failed`), in ms. Default: no limit. */
  maxExitWaitMs?: number;
  /** Limit for one call, headers and body together. */
  timeoutMs: number;
  /** Largest body accepted, in bytes. */
  maxBodyBytes: number;
  userAgent: string;
}

export interface UpstreamRequest {
  method: "GET" | "POST";
  url: string;
  headers?: Record<string, string>;
  body?: string;
  signal?: AbortSignal;
}

export interface UpstreamResponse {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
  usedProxy: boolean;
}

export class HttpTransport {
  readonly #options: TransportOptions;
  /** Shared keep-alive connections, used when no proxies are configured. */
  readonly #direct: Agent | undefined;

  constructor(options: TransportOptions) {
    this.#options = options;
    this.#direct = options.exits.exits.some((exit) => exit.proxyUrl === undefined) ? new Agent({ keepAliveTimeout: 4_000, connections: 64 }) : undefined;
  }

  /** Closes the shared connections (proxied calls close their own). */
  async close(): Promise<void> {
    await this.#direct?.close();
  }

  /**
   * Sends one request; blocks (429 among them) and 5xx become errors, other
   * statuses are the caller's to judge. A request that got no answer because
   * its exit failed (refused, reset before any answer) goes out once more
   * through another exit, at most twice: a dead proxy costs a retry, not the call.
   */
  async send(upstream: UpstreamRequest): Promise<UpstreamResponse> {
    const others = Math.min(2, this.#options.exits.exits.length - 1);
    for (let attempt = 0; ; attempt++) {
      try {
        return await this.#sendOnce(upstream);
      } catch (error) {
        const refused = error instanceof YouTubeError && error.code === "connection_failed" && exitFailures.has(error);
        if (!refused || attempt >= others || upstream.signal?.aborted) throw error;
      }
    }
  }

  async #sendOnce(upstream: UpstreamRequest): Promise<UpstreamResponse> {
    const lease = await this.#options.exits.acquire({
      ...(upstream.signal ? { signal: upstream.signal } : {}),
      ...(this.#options.maxExitWaitMs === undefined ? {} : { maxWaitMs: this.#options.maxExitWaitMs }),
    });
    let outcome: ExitOutcome = { kind: "abandoned" };
    const seen = { headers: false };
    try {
      const { response, answered } = await this.#sendThrough(lease.exit.proxyUrl, upstream, seen);
      outcome = answered;
      return response;
    } catch (error) {
      if (error instanceof YouTubeError && error.kind === "blocked") outcome = { kind: "blocked", ...(error.retryAfterSeconds === undefined ? {} : { retryAfterMs: error.retryAfterSeconds * 1000 }) };
      else if (isExitFailure(error, seen.headers)) {
        outcome = { kind: "failed" };
        exitFailures.add(error as YouTubeError);
      }
      else if (error instanceof YouTubeError) outcome = { kind: "answered" };
      throw error;
    } finally {
      await lease.settle(outcome);
    }
  }

  async #sendThrough(proxyUrl: string | undefined, upstream: UpstreamRequest, seen: { headers: boolean }): Promise<{ response: UpstreamResponse; answered: ExitOutcome }> {
    const usedProxy = proxyUrl !== undefined;
    // Through a proxy: a dispatcher per request, closed afterwards, with `Connection: close`,
    // so every call opens its own connection and a rotating proxy can give it another exit IP.
    const dispatcher: Dispatcher = usedProxy ? new ProxyAgent({ uri: proxyUrl }) : this.#direct!;
    const controller = new AbortController();
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      controller.abort(new Error("upstream timeout"));
    }, this.#options.timeoutMs);
    const onCallerAbort = (): void => controller.abort(upstream.signal?.reason);
    if (upstream.signal?.aborted) onCallerAbort();
    upstream.signal?.addEventListener("abort", onCallerAbort, { once: true });
    // undici leaves a CONNECT that a proxy accepted and never answered pending even after the
    // abort; racing the abort keeps the time limit, and destroying the dispatcher frees the socket.
    const abandoned = new Promise<never>((_, reject) => {
      controller.signal.addEventListener("abort", () => reject(controller.signal.reason), { once: true });
    });
    abandoned.catch(() => undefined);
    const start = (): Promise<Dispatcher.ResponseData> => {
      const pending = request(upstream.url, {
        method: upstream.method,
        dispatcher,
        signal: controller.signal,
        headers: {
          "user-agent": this.#options.userAgent,
          ...(usedProxy ? { connection: "close" } : {}),
          ...upstream.headers,
        },
        body: upstream.body ?? null,
        headersTimeout: this.#options.timeoutMs,
        bodyTimeout: this.#options.timeoutMs,
      });
      pending.catch(() => undefined);
      return Promise.race([pending, abandoned]);
    };
    try {
      let response: Dispatcher.ResponseData;
      try {
        response = await start();
      } catch (error) {
        // A kept-alive connection the server closed just as we sent on it: once more, on a new connection.
        // Every call this client makes only reads, so sending it again is safe; a reset after the answer began is not retried.
        if (usedProxy || timedOut || controller.signal.aborted || !isStaleConnection(error)) throw error;
        response = await start();
      }
      seen.headers = true;
      const body = await this.#readBody(response, usedProxy);
      const result = { status: response.statusCode, headers: response.headers, body, usedProxy };
      throwOnBlock(result, upstream);
      throwOnStatus(result);
      return { response: result, answered: { kind: "answered" } };
    } catch (error) {
      if (error instanceof YouTubeError) throw error;
      if (timedOut || isUndiciTimeout(error)) {
        throw new YouTubeError("upstream_timeout", `YouTube did not answer within ${this.#options.timeoutMs} ms`, {
          usedProxy,
        });
      }
      if (upstream.signal?.aborted) throw upstream.signal.reason ?? error;
      throw new YouTubeError("connection_failed", `Connection to YouTube failed: ${describe(error)}`, {
        usedProxy,
        cause: error,
      });
    } finally {
      clearTimeout(timer);
      upstream.signal?.removeEventListener("abort", onCallerAbort);
      if (usedProxy) dispatcher.destroy().catch(() => undefined);
    }
  }

  async #readBody(response: Dispatcher.ResponseData, usedProxy: boolean): Promise<string> {
    const limit = this.#options.maxBodyBytes;
    const tooLarge = (): YouTubeError =>
      new YouTubeError("upstream_too_large", `YouTube sent more than ${limit} bytes`, { usedProxy });
    const declared = Number(response.headers["content-length"]);
    if (Number.isFinite(declared) && declared > limit) {
      response.body.destroy();
      throw tooLarge();
    }
    const chunks: Buffer[] = [];
    let size = 0;
    for await (const chunk of response.body as AsyncIterable<Buffer>) {
      size += chunk.length;
      if (size > limit) {
        response.body.destroy();
        throw tooLarge();
      }
      chunks.push(chunk);
    }
    return Buffer.concat(chunks).toString("utf8");
  }
}

/** An answer YouTube gives an address it refuses, as a `blocked` error (whatever its code's usual kind). */
function throwOnBlock(response: UpstreamResponse, upstream: UpstreamRequest): void {
  const verdict = classifyAnswer({ url: upstream.url, ...(upstream.headers ? { requestHeaders: upstream.headers } : {}), ...response });
  if (!verdict) return;
  throw new YouTubeError(verdict.code, verdict.message, {
    kind: "blocked",
    usedProxy: response.usedProxy,
    ...(verdict.status === undefined ? {} : { status: verdict.status }),
    ...(verdict.retryAfterMs === undefined ? {} : { retryAfterSeconds: Math.ceil(verdict.retryAfterMs / 1000) }),
  });
}

function throwOnStatus(response: UpstreamResponse): void {
  const { status, usedProxy } = response;
  if (status >= 500) {
    throw new YouTubeError("upstream_status", `YouTube answered HTTP ${status}`, { status, usedProxy });
  }
}

/** Errors of requests whose exit failed before any answer (so another exit may be tried). */
const exitFailures = new WeakSet<YouTubeError>();

/** No answer through the exit: it failed to connect, or timed out (a cut connection or a huge body says nothing about the exit). */
function isExitFailure(error: unknown, headersArrived: boolean): boolean {
  return error instanceof YouTubeError && !headersArrived && (error.code === "upstream_timeout" || error.code === "connection_failed");
}

/**
 * undici's own limits (headersTimeout, bodyTimeout, connect timeout), set to the same time as the call's timer:
 * its coarse timers can fire a moment before that timer, and it is the same timeout.
 */
export function isUndiciTimeout(error: unknown): boolean {
  const code = (error as { code?: unknown } | undefined)?.code;
  return code === "UND_ERR_HEADERS_TIMEOUT" || code === "UND_ERR_BODY_TIMEOUT" || code === "UND_ERR_CONNECT_TIMEOUT";
}

/** The error of a request the server reset or closed before answering (undici: ECONNRESET, or "other side closed"). */
function isStaleConnection(error: unknown): boolean {
  const code = (error as { code?: unknown } | undefined)?.code;
  return code === "ECONNRESET" || code === "UND_ERR_SOCKET" || code === "EPIPE";
}

function describe(error: unknown): string {
  if (error instanceof Error) {
    const code = (error as { code?: unknown }).code;
    return typeof code === "string" ? `${code} ${error.message}` : error.message;
  }
  return String(error);
}
