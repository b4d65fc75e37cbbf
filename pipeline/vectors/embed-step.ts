/**
 * The embedding step as the build runs it: with an embedder, `vectors.db`
 * written into the set being built (build-vectors.ts) and its counts for the
 * manifest; without one, one line saying the step is skipped and why, and
 * the set has no vectors (keyword search only).
 */
import { join } from "node:path";
import { VECTORS_FILE } from "../artifact/vectors/index.js";
import type { Embedder } from "../embeddings/embedder.js";
import { buildVectors } from "./build-vectors.js";
import { VectorCache } from "./vector-cache.js";

export type VectorsOption =
  | {
      embedder: Embedder;
      /** DATA_DIR/pipeline/vector-cache.db. */
      cachePath: string;
      /** The published set, whose vectors are carried over. */
      previousSet?: string | undefined;
      /** Chunks per embedding call (EMBEDDINGS_BATCH). */
      batch: number;
      /** Only the most viewed transcripts (the demo's). */
      limit?: number;
      intervalMs?: number;
    }
  | { skipped: string };

export interface ManifestVectors {
  chunks: number;
  transcripts: number;
  embedder: { kind: string; model: string; dimensions: number };
}

export async function embedStep(
  option: VectorsOption | undefined,
  build: { databasePath: string; work: string; log: (line: string) => void; signal: AbortSignal | undefined },
): Promise<ManifestVectors | undefined> {
  if (option === undefined || "skipped" in option) {
    build.log(`vectors: not made, ${option?.skipped ?? "no embedder configured"}; the set is searched by keyword only (EMBEDDER=builtin or EMBEDDINGS_URL embeds it)`);
    return undefined;
  }
  const result = await buildVectors({
    databasePath: build.databasePath,
    outPath: join(build.work, VECTORS_FILE),
    embedder: option.embedder,
    cachePath: option.cachePath,
    previousSet: option.previousSet,
    batch: option.batch,
    ...(option.limit === undefined ? {} : { limit: option.limit }),
    ...(option.intervalMs === undefined ? {} : { intervalMs: option.intervalMs }),
    log: build.log,
    signal: build.signal,
  });
  build.log(
    `vectors: ${result.chunks.toLocaleString("en-US")} chunks of ${result.transcripts.toLocaleString("en-US")} transcripts in ${result.seconds.toFixed(1)} s (${result.embedded} embedded, ${result.carried} carried over, ${result.cached} from the cache)`,
  );
  return { chunks: result.chunks, transcripts: result.transcripts, embedder: result.embedder };
}

/** After the set is complete: the vectors it holds leave the cache (the next build carries them over from it). */
export function forgetEmbedded(option: VectorsOption | undefined): void {
  if (option === undefined || "skipped" in option) return;
  const cache = new VectorCache(option.cachePath);
  try {
    cache.clear();
  } finally {
    cache.close();
  }
}
