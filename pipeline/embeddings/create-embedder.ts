/**
 * The embedder the settings name (EMBEDDER, EMBEDDINGS_URL and the rows
 * after it in settings/rows.ts), for the build and for the server's queries.
 */
import type { EmbedderIdentity } from "../artifact/vectors/index.js";
import { BuiltinEmbedder } from "./builtin-embedder.js";
import type { Embedder } from "./embedder.js";
import { HttpEmbedder } from "./http-embedder.js";

export interface EmbedderSettings {
  embedder: "auto" | "builtin" | "url" | "off";
  embeddingsUrl: string | undefined;
  embeddingsModel: string;
  embeddingsApiKey: string;
  embeddingsDimensions: number;
  embeddingsTimeoutMs: number;
  embeddingsRetries: number;
  /** The build's; the server sends one query at a time. */
  embeddingsBatch?: number;
}

/**
 * The embedder the settings choose, or undefined (with the reason) when none:
 * EMBEDDER=url or auto with EMBEDDINGS_URL set gives the HTTP one, builtin
 * the built-in one. `autoBuiltin`: what auto without a URL means here (the
 * server: the built-in model when the served set was embedded by it).
 */
export function embedderFromSettings(settings: EmbedderSettings, autoBuiltin = false): { embedder: Embedder } | { none: string } {
  const mode = settings.embedder;
  if (mode === "off") return { none: "EMBEDDER is off" };
  if (mode === "url" || (mode === "auto" && settings.embeddingsUrl !== undefined)) {
    if (settings.embeddingsUrl === undefined) return { none: "EMBEDDER is url but EMBEDDINGS_URL is not set" };
    return {
      embedder: new HttpEmbedder({
        url: settings.embeddingsUrl,
        model: settings.embeddingsModel,
        apiKey: settings.embeddingsApiKey,
        dimensions: settings.embeddingsDimensions,
        batch: settings.embeddingsBatch ?? 32,
        timeoutMs: settings.embeddingsTimeoutMs,
        retries: settings.embeddingsRetries,
      }),
    };
  }
  if (mode === "builtin" || autoBuiltin) return { embedder: new BuiltinEmbedder() };
  return { none: "no embedder is configured (EMBEDDER=builtin, or EMBEDDINGS_URL)" };
}

/** The identity an HTTP embedder of these settings would have, when the settings fix it (the model and a length). */
export function settingsIdentity(settings: EmbedderSettings): EmbedderIdentity | undefined {
  if (settings.embeddingsUrl === undefined || settings.embeddingsDimensions === 0) return undefined;
  return { kind: "url", model: settings.embeddingsModel, dimensions: settings.embeddingsDimensions };
}
