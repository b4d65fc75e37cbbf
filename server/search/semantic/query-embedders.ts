/**
 * The server's query embedders: for the embedder that made the served set's
 * vectors, the one of this server's settings that makes the same vectors, or
 * the reason there is none (then semantic and hybrid search are refused and
 * keyword search goes on). Query vectors are kept (LRU) so paging does not
 * embed the query again.
 */
import { describeEmbedder, type EmbedderIdentity } from "../../../pipeline/artifact/vectors/index.js";
import { BuiltinEmbedder } from "../../../pipeline/embeddings/builtin-embedder.js";
import type { EmbedderSettings } from "../../../pipeline/embeddings/create-embedder.js";
import type { Embedder } from "../../../pipeline/embeddings/embedder.js";
import { HttpEmbedder } from "../../../pipeline/embeddings/http-embedder.js";
import { Lru } from "../../data/lru.js";

/** Query vectors kept. */
const KEPT_QUERIES = 1000;

export type QueryEmbedding = { embed(q: string): Promise<Float32Array> } | { refused: string };

export class QueryEmbedders {
  readonly #settings: EmbedderSettings;
  #builtin: Embedder | undefined;
  #http: Embedder | undefined;
  readonly #kept = new Lru<string, Float32Array>(KEPT_QUERIES);

  constructor(settings: EmbedderSettings) {
    this.#settings = settings;
  }

  /** What this server can embed queries with for a set whose vectors `set` made. */
  for(set: EmbedderIdentity): QueryEmbedding {
    const embedder = this.#choose(set);
    if (typeof embedder === "string") return { refused: `this set's vectors were made by ${describeEmbedder(set)}, but ${embedder}` };
    const key = `${JSON.stringify(set)}\u0000`;
    return {
      embed: async (q) => {
        const kept = this.#kept.get(key + q);
        if (kept) return kept;
        const [vector] = await embedder.embed([q]);
        this.#kept.set(key + q, vector!);
        return vector!;
      },
    };
  }

  #choose(set: EmbedderIdentity): Embedder | string {
    const s = this.#settings;
    if (s.embedder === "off") return "EMBEDDER is off on this server";
    if (set.kind === "builtin") {
      if (s.embedder === "url") return "this server embeds queries with EMBEDDINGS_URL (EMBEDDER=url)";
      return (this.#builtin ??= new BuiltinEmbedder());
    }
    if (s.embedder === "builtin") return "this server embeds queries with the built-in model (EMBEDDER=builtin)";
    if (s.embeddingsUrl === undefined) return "this server has no EMBEDDINGS_URL";
    if (s.embeddingsModel !== set.model) return `this server's EMBEDDINGS_MODEL is "${s.embeddingsModel}"`;
    if (s.embeddingsDimensions !== 0 && s.embeddingsDimensions !== set.dimensions) return `this server's EMBEDDINGS_DIMENSIONS is ${s.embeddingsDimensions}`;
    return (this.#http ??= new HttpEmbedder({
      url: s.embeddingsUrl,
      model: s.embeddingsModel,
      apiKey: s.embeddingsApiKey,
      // Answers of another length are errors: they could not be compared with the set's.
      dimensions: set.dimensions,
      requestDimensions: s.embeddingsDimensions !== 0,
      batch: 1,
      timeoutMs: s.embeddingsTimeoutMs,
      retries: s.embeddingsRetries,
    }));
  }

  async close(): Promise<void> {
    await Promise.all([this.#builtin?.close(), this.#http?.close()]);
  }
}
