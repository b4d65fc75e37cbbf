/**
 * Phase 1: the artifact set the server will load, built straight from the
 * generator's JSONL (`direct`) with the pipeline's own build and publish
 * stages. Its figures are kept in `build.json` beside it, so a later run that
 * reuses the set still reports how it was made (marked as reused).
 */
import { spawn } from "node:child_process";
import { once } from "node:events";
import { closeSync, existsSync, openSync, readFileSync, statSync } from "node:fs";
import { createInterface } from "node:readline";
import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { buildArtifacts } from "../../pipeline/build/build-artifacts.js";
import { ARTIFACT_FILES, type Manifest } from "../../pipeline/artifact/contract/contract.js";
import type { RunSummary } from "../../pipeline/run/run-pipeline.js";
import { dataDirLayout } from "../../pipeline/artifact/layout/layout.js";
import { newBuildDir, publishBuild } from "../../pipeline/publish/publish.js";
import { readJsonlFiles } from "../../pipeline/input/read-jsonl.js";
import type { CorpusFiles } from "./corpus.js";
import { loadAverage } from "./machine.js";
import { REPO_ROOT, tsxArgs } from "./paths.js";
import { treeRssOf } from "./server-process.js";

export interface BuildRecord {
  size: number;
  seed: number;
  /** How the records reached the build. */
  mode: "direct" | "pipeline";
  corpusBytes: number;
  /** Seconds generating the corpus (undefined when an existing one was reused). */
  generateSeconds: number | undefined;
  records: number;
  transcripts: number;
  totalWords: number;
  /** Reading, validating and staging the records. */
  stageSeconds: number;
  /** Final database in popularity order, FTS5 index, optimize, term statistics. */
  indexSeconds: number;
  titleIndexSeconds: number;
  /** Whole build including checksums in the manifest. */
  buildSeconds: number;
  /** For the pipeline path: crawl and fetch through the stand-in (the run's wall time minus its build). */
  fetchSeconds?: number;
  fetched?: number;
  fetchFailures?: number;
  standinPeakRssMiB?: number;
  /** Processes the stand-in ran as (absent: one, before it could run as several). */
  standinWorkers?: number;
  databaseBytes: number;
  titleIndexBytes: number;
  peakRssMiB: number;
  loadAverage: number;
  finishedAt: string;
}

export function readBuildRecord(path: string): BuildRecord | undefined {
  if (!existsSync(path)) return undefined;
  return JSON.parse(readFileSync(path, "utf8")) as BuildRecord;
}

export function hasArtifacts(dataDir: string): boolean {
  return existsSync(join(dataDirLayout(dataDir).current, ARTIFACT_FILES.manifest));
}

/** Builds and publishes an artifact set from JSONL slices; returns the phase-1 figures. */
export async function buildDirect(
  dataDir: string,
  recordPath: string,
  corpus: CorpusFiles,
  options: { size: number; seed: number; log: (line: string) => void },
): Promise<BuildRecord> {
  const marks: Record<string, number> = {};
  const started = performance.now();
  let peakRss = process.memoryUsage().rss;
  const sampler = setInterval(() => {
    peakRss = Math.max(peakRss, process.memoryUsage().rss);
  }, 1000);
  const dir = newBuildDir(dataDir);
  let result;
  try {
    result = await buildArtifacts({
      records: readJsonlFiles(corpus.parts),
      outDir: dir,
      dataset: `bench-${options.size}-seed${options.seed}`,
      log: (line) => {
        // The build reports the end of each stage; the time of each line splits the build into stages.
        const at = (performance.now() - started) / 1000;
        if (line.startsWith("staged")) marks.staged = at;
        else if (line.startsWith("database")) marks.database = at;
        else if (line.startsWith("title index")) marks.titles = at;
        options.log(`build: ${line} (${at.toFixed(1)} s)`);
      },
    });
  } finally {
    clearInterval(sampler);
  }
  await publishBuild(dataDir, dir);
  const staged = marks.staged ?? 0;
  const database = marks.database ?? staged;
  const titles = marks.titles ?? database;
  const record: BuildRecord = {
    size: options.size,
    seed: options.seed,
    mode: "direct",
    corpusBytes: corpus.bytes,
    generateSeconds: corpus.seconds,
    records: result.recordsRead,
    transcripts: result.manifest.counts.transcripts,
    totalWords: result.manifest.counts.totalWords,
    stageSeconds: staged,
    indexSeconds: database - staged,
    titleIndexSeconds: titles - database,
    buildSeconds: result.seconds,
    databaseBytes: statSync(join(dir, ARTIFACT_FILES.database)).size,
    titleIndexBytes: statSync(join(dir, ARTIFACT_FILES.titleIndex)).size,
    peakRssMiB: Math.round(peakRss / 2 ** 20),
    loadAverage: loadAverage(),
    finishedAt: new Date().toISOString(),
  };
  await writeFile(recordPath, JSON.stringify(record, null, 2) + "\n");
  return record;
}

/**
 * The full path: the stand-in serves the generated corpus, and
 * `npm run pipeline -- run` crawls every channel, fetches every transcript
 * (watch page, player, timedtext) and builds and publishes the set.
 */
export async function buildViaPipeline(
  dataDir: string,
  recordPath: string,
  options: { size: number; seed: number; logsDir: string; concurrency: number; standinWorkers: number; log: (line: string) => void },
): Promise<BuildRecord> {
  const channelsFile = join(options.logsDir, "channels.txt");
  const standin = spawn(process.execPath, tsxArgs("scripts/bench/standin-process.ts", ["--videos", String(options.size), "--seed", String(options.seed), "--channels-file", channelsFile, "--workers", String(options.standinWorkers)]), {
    cwd: REPO_ROOT,
    stdio: ["ignore", "pipe", openSync(join(options.logsDir, "standin.log"), "a")],
  });
  let peakStandinRss = 0;
  try {
    const [line] = (await once(createInterface({ input: standin.stdout! }), "line")) as [string];
    const origin = line.trim();
    options.log(`stand-in at ${origin}; running the pipeline`);
    const started = performance.now();
    const sampler = setInterval(() => {
      try {
        peakStandinRss = Math.max(peakStandinRss, treeRssOf(standin.pid!));
      } catch {
        // exited
      }
    }, 2000);
    const logFd = openSync(join(options.logsDir, "pipeline.log"), "a");
    try {
      await new Promise<void>((resolve, reject) => {
        const run = spawn(
          process.execPath,
          tsxArgs("pipeline/cli.ts", ["run", "--channels", channelsFile, "--origin", origin, "--concurrency", String(options.concurrency), "--recrawl-after", "0"]),
          { cwd: REPO_ROOT, stdio: ["ignore", logFd, logFd], env: { ...process.env, DATA_DIR: dataDir } },
        );
        run.once("error", reject);
        run.once("exit", (code, signal) =>
          code === 0 || code === 4 ? resolve() : reject(new Error(`the pipeline run exited with ${signal ?? code}; see ${join(options.logsDir, "pipeline.log")}`)),
        );
      });
    } finally {
      clearInterval(sampler);
      closeSync(logFd);
    }
    const wall = (performance.now() - started) / 1000;
    const summary = JSON.parse(readFileSync(dataDirLayout(dataDir).lastRun, "utf8")) as RunSummary;
    const artifacts = dataDirLayout(dataDir).current;
    const manifest = JSON.parse(readFileSync(join(artifacts, ARTIFACT_FILES.manifest), "utf8")) as Manifest;
    const buildSeconds = summary.build?.seconds ?? 0;
    const record: BuildRecord = {
      size: options.size,
      seed: options.seed,
      mode: "pipeline",
      corpusBytes: 0,
      generateSeconds: undefined,
      records: manifest.counts.videos,
      transcripts: manifest.counts.transcripts,
      totalWords: manifest.counts.totalWords,
      stageSeconds: Number.NaN,
      indexSeconds: Number.NaN,
      titleIndexSeconds: Number.NaN,
      buildSeconds,
      fetchSeconds: wall - buildSeconds,
      fetched: summary.transcripts.fetched,
      fetchFailures: Object.values(summary.transcripts.failed).reduce((a, b) => a + b, 0) + Object.values(summary.transcripts.permanent).reduce((a, b) => a + b, 0),
      standinPeakRssMiB: Math.round(peakStandinRss / 2 ** 20),
      standinWorkers: options.standinWorkers,
      databaseBytes: statSync(join(artifacts, ARTIFACT_FILES.database)).size,
      titleIndexBytes: statSync(join(artifacts, ARTIFACT_FILES.titleIndex)).size,
      peakRssMiB: Number.NaN,
      loadAverage: loadAverage(),
      finishedAt: new Date().toISOString(),
    };
    await writeFile(recordPath, JSON.stringify(record, null, 2) + "\n");
    return record;
  } finally {
    standin.kill("SIGTERM");
  }
}
