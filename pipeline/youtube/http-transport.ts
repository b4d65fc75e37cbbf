/**
 * One upstream HTTP call: through the next proxy of the pool on a fresh
 * connection each time (so a rotating proxy can give every call another exit
 * IP), or, without proxies, over a shared keep-alive pool (a new TCP
 * connection per call would only cost time). A hard time limit covers
 * headers and body, and a cap on the body size keeps a runaway response from
 * exhausting memory. Network failures come out as `YouTubeError`s.
 */
import { Agent, ProxyAgent, request, type Dispatcher } from "undici";
import { YouTubeError } from "./errors.js";

export interface TransportOptions {
  /** Proxy URLs, used round-robin, one per request. */
  proxyUrls: readonly string[];
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
  #nextProxy = 0;

  constructor(options: TransportOptions) {
    this.#options = options;
    this.#direct = options.proxyUrls.length === 0 ? new Agent({ keepAliveTimeout: 4_000, connections: 64 }) : undefined;
  }

  /** Closes the shared connections (proxied calls close their own). */
  async close(): Promise<void> {
    await this.#direct?.close();
  }

  /** Sends one request; 429 and 5xx become errors, other statuses are the caller's to judge. */
  async send(upstream: UpstreamRequest): Promise<UpstreamResponse> {
    const proxyUrl = this.#pickProxy();
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
      const body = await this.#readBody(response, usedProxy);
      const result = { status: response.statusCode, headers: response.headers, body, usedProxy };
      throwOnStatus(result);
      return result;
    } catch (error) {
      if (error instanceof YouTubeError) throw error;
      if (timedOut) {
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

  #pickProxy(): string | undefined {
    const proxies = this.#options.proxyUrls;
    if (proxies.length === 0) return undefined;
    const proxy = proxies[this.#nextProxy % proxies.length];
    this.#nextProxy = (this.#nextProxy + 1) % proxies.length;
    return proxy;
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

function throwOnStatus(response: UpstreamResponse): void {
  const { status, usedProxy } = response;
  if (status === 429) {
    const retryAfter = Number(response.headers["retry-after"]);
    throw new YouTubeError("rate_limited", "YouTube answered 429 Too Many Requests", {
      status,
      usedProxy,
      ...(Number.isFinite(retryAfter) && retryAfter >= 0 ? { retryAfterSeconds: retryAfter } : {}),
    });
  }
  if (status >= 500) {
    throw new YouTubeError("upstream_status", `YouTube answered HTTP ${status}`, { status, usedProxy });
  }
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
