/**
 * The soak's dataset: a synthetic corpus of `videos + extra` videos, the
 * first `videos` built and published into a DATA_DIR (reused when present);
 * the rest exist only at the stand-in, so requests for them are live fetches.
 */
import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import { buildArtifacts } from "../../pipeline/build/build-artifacts.js";
import { createSyntheticCorpus, type SyntheticCorpus } from "../../pipeline/corpus/synthetic.js";
import { writeCorpusJsonl } from "../../pipeline/corpus/write-jsonl.js";
import { ARTIFACT_FILES } from "../../pipeline/artifact/contract/contract.js";
import { dataDirLayout } from "../../pipeline/artifact/layout/layout.js";
import { newBuildDir, publishBuild } from "../../pipeline/publish/publish.js";
import { readJsonlFiles } from "../../pipeline/input/read-jsonl.js";
import type { SoakOptions } from "./options.js";

export interface SoakDataset {
  root: string;
  dataDir: string;
  corpus: SyntheticCorpus;
  /** Indexes [0, stored) are in the artifact set; [stored, corpus.videoCount) only at the stand-in. */
  stored: number;
  reused: boolean;
}

export async function prepareDataset(options: SoakOptions, repoRoot: string, log: (line: string) => void): Promise<SoakDataset> {
  const extra = Math.max(1_000, Math.round(options.videos / 10));
  const corpus = createSyntheticCorpus({ seed: options.seed, videos: options.videos + extra, meanTranscriptWords: options.words });
  const root = path.join(repoRoot, ".bench", `soak-${options.videos}v-s${options.seed}-w${options.words}`);
  const dataDir = path.join(root, "data");
  if (existsSync(path.join(dataDirLayout(dataDir).current, ARTIFACT_FILES.manifest))) {
    return { root, dataDir, corpus, stored: options.videos, reused: true };
  }
  mkdirSync(dataDir, { recursive: true });
  const jsonl = path.join(root, "corpus.jsonl");
  let started = performance.now();
  log(`generating ${options.videos} videos (mean ${options.words} words) into ${path.relative(repoRoot, jsonl)}`);
  await writeCorpusJsonl(corpus, jsonl, { from: 0, to: options.videos });
  log(`generated in ${((performance.now() - started) / 1000).toFixed(0)} s; building`);
  started = performance.now();
  const build = newBuildDir(dataDir);
  const { manifest } = await buildArtifacts({ records: readJsonlFiles([jsonl]), outDir: build, dataset: `soak-${options.videos}` });
  await publishBuild(dataDir, build);
  const seconds = (performance.now() - started) / 1000;
  writeFileSync(path.join(root, "build.json"), `${JSON.stringify({ ...options, counts: manifest.counts, buildSeconds: seconds, builtAt: manifest.builtAt }, null, 2)}\n`);
  log(`built and published in ${seconds.toFixed(0)} s: ${JSON.stringify(manifest.counts)}`);
  return { root, dataDir, corpus, stored: options.videos, reused: false };
}
