/**
 * The embedding step's option for a build into a DATA_DIR, from the
 * pipeline's settings: the embedder they name (EMBEDDER, EMBEDDINGS_URL …),
 * the DATA_DIR's vector cache, and the published set to carry vectors over
 * from; or why the step is skipped.
 */
import { realpathSync } from "node:fs";
import { dataDirLayout } from "../artifact/layout/index.js";
import { embedderFromSettings, type EmbedderSettings } from "../embeddings/create-embedder.js";
import type { VectorsOption } from "./embed-step.js";

export function vectorsOption(dataDir: string, settings: EmbedderSettings | undefined, overrides: { builtin?: boolean; limit?: number } = {}): VectorsOption {
  if (settings === undefined && !overrides.builtin) return { skipped: "no embedder configured" };
  const chosen = embedderFromSettings(settings ?? { embedder: "builtin", embeddingsUrl: undefined, embeddingsModel: "", embeddingsApiKey: "", embeddingsDimensions: 0, embeddingsTimeoutMs: 30_000, embeddingsRetries: 2 }, overrides.builtin ?? false);
  if ("none" in chosen) return { skipped: chosen.none };
  const layout = dataDirLayout(dataDir);
  let previousSet: string | undefined;
  try {
    previousSet = realpathSync(layout.current);
  } catch {
    previousSet = undefined;
  }
  return {
    embedder: chosen.embedder,
    cachePath: layout.vectorCache,
    previousSet,
    batch: settings?.embeddingsBatch ?? 32,
    ...(overrides.limit === undefined ? {} : { limit: overrides.limit }),
  };
}
