/**
 * The embedded default dataset: on a fresh clone `npm start` finds no
 * artifact set and builds this one. Its videos are GENERATED (see
 * pipeline/corpus/): deterministic, made from real English text, and not
 * real YouTube videos.
 */
import { existsSync } from "node:fs";
import { buildArtifacts } from "./build.js";
import { DEMO_DATASET, type VideoRecord } from "./artifact/contract.js";
import { createDemoCorpus } from "./corpus/demo.js";
import { dataDirLayout } from "./artifact/layout.js";
import { newBuildDir, publishBuild } from "./publish.js";

export { DEMO_DATASET };

export function* demoRecords(): Generator<VideoRecord> {
  const corpus = createDemoCorpus();
  for (let i = 0; i < corpus.videoCount; i++) yield corpus.videoAt(i);
}

/** Builds and publishes the demo dataset into `dataDir` unless an artifact set is already published there. */
export async function ensureDemoArtifacts(dataDir: string, log: (message: string) => void = () => {}): Promise<{ built: boolean }> {
  if (existsSync(dataDirLayout(dataDir).current)) return { built: false };
  log("no artifact set found: building the generated demo dataset (once)");
  const dir = newBuildDir(dataDir);
  const result = await buildArtifacts({ records: demoRecords(), outDir: dir, dataset: DEMO_DATASET, log });
  await publishBuild(dataDir, dir);
  log(`demo dataset ready: ${result.manifest.counts.videos} videos in ${result.seconds.toFixed(1)} s`);
  return { built: true };
}
