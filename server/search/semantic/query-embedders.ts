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
import type { Logger } from "../../log.js";

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

  /**
   * Readies the embedder for a set whose vectors `set` made, keeping nothing:
   * the built-in model loads (seconds, on its thread), a service is asked once,
   * so the first search by meaning does not wait for it. What came of it.
   */
  async warm(set: EmbedderIdentity): Promise<{ ms: number } | { refused: string } | { failed: string }> {
    const embedder = this.#choose(set);
    if (typeof embedder === "string") return { refused: embedder };
    const started = performance.now();
    try {
      await embedder.embed(["warm up"]);
      return { ms: Math.round(performance.now() - started) };
    } catch (error) {
      return { failed: error instanceof Error ? error.message : String(error) };
    }
  }

  async close(): Promise<void> {
    await Promise.all([this.#builtin?.close(), this.#http?.close()]);
  }
}

/** Once the served set is ready: its query embedder readied in the background, and a line saying how that went. */
export async function warmQueryEmbedder(catalog: { semantic?(): { embedder: EmbedderIdentity } | undefined }, embedders: QueryEmbedders, log: Logger): Promise<void> {
  let set: EmbedderIdentity | undefined;
  try {
    set = catalog.semantic?.()?.embedder;
  } catch (error) {
    log.warn("semantic search unavailable", { detail: error instanceof Error ? error.message : String(error) });
    return;
  }
  if (set === undefined) return;
  const result = await embedders.warm(set);
  const embedder = describeEmbedder(set);
  if ("ms" in result) log.info("query embedder ready", { embedder, ms: result.ms });
  else if ("refused" in result) log.info("semantic search refused", { embedder, detail: result.refused });
  else log.warn("query embedder failed", { embedder, detail: result.failed });
}
