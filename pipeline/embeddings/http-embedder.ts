/**
 * The embedder of EMBEDDINGS_URL: `POST /v1/embeddings` with
 * `{ model, input: [...], dimensions? }`, answered `{ data: [{ embedding,
 * index }] }` (the OpenAI shape that Ollama, text-embeddings-inference, vLLM
 * and hosted APIs speak). Each request has a timeout; timeouts, refused
 * connections, 5xx and 429 are retried with backoff; an answer of the wrong
 * length or shape is an error at once, naming what came back.
 */
import type { EmbedderIdentity } from "../artifact/vectors/index.js";
import { EmbedderError, type Embedder } from "./embedder.js";

export interface HttpEmbedderOptions {
  /** The base URL or the full URL ending in /embeddings. */
  url: string;
  model: string;
  apiKey?: string;
  /** 0: whatever the first answer has. */
  dimensions: number;
  /** Send `dimensions` with each request (default: when it is not 0); a model that has one length may refuse the field. */
  requestDimensions?: boolean;
  /** Texts per request. */
  batch: number;
  timeoutMs: number;
  retries: number;
  /** First backoff in ms (default 500), doubled each retry. */
  backoffMs?: number;
}

export function embeddingsEndpoint(url: string): string {
  const trimmed = url.replace(/\/+$/, "");
  if (/\/embeddings$/.test(trimmed)) return trimmed;
  return /\/v1$/.test(trimmed) ? `${trimmed}/embeddings` : `${trimmed}/v1/embeddings`;
}

const Answer = (body: unknown): number[][] | undefined => {
  const data = (body as { data?: unknown } | null)?.data;
  if (!Array.isArray(data)) return undefined;
  const out: number[][] = [];
  for (const [i, item] of data.entries()) {
    const embedding = (item as { embedding?: unknown } | null)?.embedding;
    const index = (item as { index?: unknown }).index;
    if (!Array.isArray(embedding) || !embedding.every((x) => typeof x === "number")) return undefined;
    out[typeof index === "number" ? index : i] = embedding as number[];
  }
  return out;
};

export class HttpEmbedder implements Embedder {
  readonly #options: HttpEmbedderOptions;
  readonly #endpoint: string;
  #dimensions: number;

  constructor(options: HttpEmbedderOptions) {
    this.#options = options;
    this.#endpoint = embeddingsEndpoint(options.url);
    this.#dimensions = options.dimensions;
  }

  async identity(): Promise<EmbedderIdentity> {
    if (this.#dimensions === 0) await this.embed(["dimensions"]);
    return { kind: "url", model: this.#options.model, dimensions: this.#dimensions };
  }

  async embed(texts: readonly string[], signal?: AbortSignal): Promise<Float32Array[]> {
    const out: Float32Array[] = [];
    for (let i = 0; i < texts.length; i += this.#options.batch) {
      out.push(...(await this.#request(texts.slice(i, i + this.#options.batch), signal)));
    }
    return out;
  }

  async #request(input: readonly string[], signal?: AbortSignal): Promise<Float32Array[]> {
    const { retries, backoffMs = 500 } = this.#options;
    for (let attempt = 0; ; attempt++) {
      try {
        return await this.#once(input, signal);
      } catch (error) {
        const retriable = error instanceof EmbedderError && error.retriable;
        if (!retriable || attempt >= retries || signal?.aborted) throw error;
        await new Promise((resolve) => setTimeout(resolve, backoffMs * 2 ** attempt));
      }
    }
  }

  async #once(input: readonly string[], signal?: AbortSignal): Promise<Float32Array[]> {
    const { model, apiKey, timeoutMs } = this.#options;
    const timeout = AbortSignal.timeout(timeoutMs);
    const body = { model, input, ...((this.#options.requestDimensions ?? this.#options.dimensions > 0) ? { dimensions: this.#options.dimensions } : {}) };
    let response: Response;
    let text: string;
    try {
      response = await fetch(this.#endpoint, {
        method: "POST",
        headers: { "content-type": "application/json", ...(apiKey ? { authorization: `Bearer ${apiKey}` } : {}) },
        body: JSON.stringify(body),
        signal: signal ? AbortSignal.any([signal, timeout]) : timeout,
      });
      text = await response.text();
    } catch (error) {
      if (timeout.aborted) throw new EmbedderError("timeout", `the embeddings service at ${this.#endpoint} did not answer within ${timeoutMs} ms (EMBEDDINGS_TIMEOUT_MS)`);
      if (signal?.aborted) throw error;
      throw new EmbedderError("unreachable", `the embeddings service at ${this.#endpoint} could not be reached: ${(error as Error).cause instanceof Error ? ((error as Error).cause as Error).message : (error as Error).message}`, { cause: error });
    }
    if (!response.ok) {
      // 5xx and 429 are worth another try, other statuses are not.
      throw new EmbedderError("status", `the embeddings service at ${this.#endpoint} answered ${response.status}: ${text.slice(0, 200)}`, {
        retriable: response.status >= 500 || response.status === 429,
      });
    }
    let vectors: number[][] | undefined;
    try {
      vectors = Answer(JSON.parse(text));
    } catch {
      vectors = undefined;
    }
    if (!vectors || vectors.length !== input.length || vectors.some((v) => v === undefined)) {
      throw new EmbedderError("answer", `the embeddings service at ${this.#endpoint} answered 200 without ${input.length} embeddings in data[].embedding`);
    }
    const length = vectors[0]!.length;
    if (this.#dimensions === 0 && length > 0) this.#dimensions = length;
    const wrong = vectors.find((v) => v.length !== this.#dimensions);
    if (wrong) {
      throw new EmbedderError(
        "dimensions",
        `the embeddings service at ${this.#endpoint} answered vectors of ${wrong.length} dimensions, but ${this.#dimensions} are expected (EMBEDDINGS_DIMENSIONS, or the set's vectors)`,
      );
    }
    return vectors.map((v) => Float32Array.from(v));
  }

  async close(): Promise<void> {}
}
