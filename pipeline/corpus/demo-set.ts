/**
 * The embedded default dataset: on a fresh clone `npm start` finds no
 * artifact set and builds this one. Its videos are GENERATED (see
 * pipeline/corpus/): deterministic, made from real English text, and not
 * real YouTube videos.
 */
import { existsSync } from "node:fs";
import { buildArtifacts } from "../build/build-artifacts.js";
import { DEMO_DATASET, type VideoRecord } from "../artifact/contract/index.js";
import { createDemoCorpus } from "./demo.js";
import { dataDirLayout } from "../artifact/layout/index.js";
import { newBuildDir, publishBuild } from "../publish/publish.js";
import { acquireLock } from "../state/acquire-lock.js";
import type { EmbedderSettings } from "../embeddings/create-embedder.js";
import { vectorsOption } from "../vectors/vectors-option.js";

/**
 * The most viewed demo transcripts embedded for search by meaning (with the
 * built-in embedder unless EMBEDDINGS_URL names another, none with
 * EMBEDDER=off): enough to try mode=semantic and hybrid without making the
 * first start much slower (the figures: docs/search.md#search-by-meaning).
 */
export const DEMO_VECTOR_TRANSCRIPTS = 5;

export { DEMO_DATASET };

export function* demoRecords(): Generator<VideoRecord> {
  const corpus = createDemoCorpus();
  for (let i = 0; i < corpus.videoCount; i++) yield corpus.videoAt(i);
}

/**
 * Builds and publishes the demo dataset into `dataDir` unless an artifact set
 * is already published there. Like every publish it holds the pipeline's run
 * lock, so it never lands over a set a pipeline run is publishing: while a
 * run holds the lock it throws LockHeldError, saying whose.
 */
export async function ensureDemoArtifacts(
  dataDir: string,
  log: (message: string) => void = () => {},
  embedding?: EmbedderSettings,
): Promise<{ built: boolean }> {
  const layout = dataDirLayout(dataDir);
  if (existsSync(layout.current)) return { built: false };
  const lock = acquireLock(layout.lock);
  try {
    // Looked at again under the lock: a run may have published the first set meanwhile.
    if (existsSync(layout.current)) return { built: false };
    log("no artifact set found: building the generated demo dataset (once)");
    const dir = newBuildDir(dataDir);
    const vectors =
      embedding?.embedder === "off"
        ? ({ skipped: "EMBEDDER is off" } as const)
        : vectorsOption(dataDir, embedding, { builtin: embedding?.embeddingsUrl === undefined, limit: DEMO_VECTOR_TRANSCRIPTS });
    const result = await buildArtifacts({ records: demoRecords(), outDir: dir, dataset: DEMO_DATASET, log, vectors });
    await publishBuild(dataDir, dir);
    log(`demo dataset ready: ${result.manifest.counts.videos} videos in ${result.seconds.toFixed(1)} s`);
    return { built: true };
  } finally {
    lock.release();
  }
}
