/**
 * What turns text into vectors for search by meaning: the built-in model on
 * a worker thread (builtin-embedder.ts) or a service speaking the
 * `/v1/embeddings` API (http-embedder.ts). The build embeds chunks with one,
 * the server its queries; both record or compare its identity.
 */
import type { EmbedderIdentity } from "../artifact/vectors/index.js";

export interface Embedder {
  /** Known once the embedder answered (or at once, when the settings fix it). */
  identity(): Promise<EmbedderIdentity>;
  /** One vector per text, in order. */
  embed(texts: readonly string[], signal?: AbortSignal): Promise<Float32Array[]>;
  close(): Promise<void>;
}

export type EmbedderFailure = "timeout" | "unreachable" | "status" | "dimensions" | "answer" | "model";

/** An embedder could not give vectors: what failed, in words an operator can act on. */
export class EmbedderError extends Error {
  override name = "EmbedderError";
  /** A later try may succeed: a timeout, no connection, a 5xx or 429. */
  readonly retriable: boolean;
  constructor(
    readonly failure: EmbedderFailure,
    message: string,
    options: { cause?: unknown; retriable?: boolean } = {},
  ) {
    super(message, { cause: options.cause });
    this.retriable = options.retriable ?? (failure === "timeout" || failure === "unreachable");
  }
}
