/**
 * The build stage: VideoRecords (JSONL from the fetch stage, the live store,
 * or a generator) → a complete artifact set in `outDir`.
 *
 * Everything is written to a temporary sibling directory that is renamed to
 * `outDir` only when complete, so no reader ever sees half a build. Its name
 * carries the building process's pid (`partialBuildDir`), so a later publish can
 * remove the folders of builds whose process died (publish/publish.ts).
 *
 * Aborting `signal` stops the build within a few seconds: it is checked
 * between steps and between the bounded chunks of each long step
 * (command/interrupt.ts); the partial directory is removed and
 * BuildInterrupted thrown.
 */
import { mkdir, rename, rm } from "node:fs/promises";
import { dirname, join } from "node:path";
import { ARTIFACT_FILES, type Manifest } from "../artifact/contract/index.js";
import { buildDatabase } from "./build-database.js";
import { buildTitleIndex } from "./build-title-index.js";
import { BuildInterrupted, throwIfInterrupted } from "../command/interrupt.js";
import { writeManifest } from "../artifact/manifest/index.js";
import { stageRecords, type RecordSource } from "./stage-records.js";
import { createStepProgress, type StepProgress } from "./step-progress.js";
import { partialBuildDir, removeAbandonedPartials } from "../publish/publish.js";
import { embedStep, forgetEmbedded, type VectorsOption } from "../vectors/embed-step.js";

export interface BuildOptions {
  records: RecordSource;
  /** Must not exist yet; created by the final rename. */
  outDir: string;
  /** Name recorded in the manifest (default "custom"). */
  dataset?: string;
  /** Called for each record that fails validation (it is skipped). */
  onInvalid?: (error: Error, index: number) => void;
  /** The live store's sequence number up to which its records are among `records` (recorded in the manifest). */
  liveSeq?: number;
  /** Transcripts at and above which the indexes are built on worker threads (default build-database.ts THREADS_FROM). */
  threadsFrom?: number;
  /** The live store those records came from (recorded in the manifest beside `liveSeq`). */
  liveStoreId?: string | undefined;
  /** Progress lines for operators (default: silent). */
  log?: (message: string) => void;
  /** How far the long steps are (default: a line to `log` at most every 10 s, build/step-progress.ts). */
  progress?: StepProgress;
  /** Records `records` will yield, when known: staging progress is shown against it. */
  expectedRecords?: number;
  /** Aborting stops the build: nothing is written to `outDir`, BuildInterrupted is thrown. */
  signal?: AbortSignal;
  /** Search by meaning: the embedder and where its vectors come from, or why the step is skipped (vectors/embed-step.ts). Default: skipped. */
  vectors?: VectorsOption;
}

export { BuildInterrupted } from "../command/interrupt.js";

export interface BuildResult {
  manifest: Manifest;
  recordsRead: number;
  invalidRecords: number;
  seconds: number;
}

export async function buildArtifacts(options: BuildOptions): Promise<BuildResult> {
  const started = performance.now();
  const log = options.log ?? (() => {});
  const progress = options.progress ?? createStepProgress(log);
  const signal = options.signal;
  throwIfInterrupted(signal);
  const parent = dirname(options.outDir);
  await mkdir(parent, { recursive: true });
  // Before this build needs the space: what builds killed earlier left behind.
  await removeAbandonedPartials(parent);
  const work = partialBuildDir(options.outDir);
  await mkdir(work);
  try {
    const stagingPath = join(work, "staging.db");
    const staged = await stageRecords(stagingPath, options.records, options.onInvalid, signal, (read) =>
      progress("staging records", read, options.expectedRecords ?? 0),
    );
    log(`staged ${staged.records} records (${staged.invalid} invalid)`);
    const builtAt = new Date().toISOString();
    const dataset = options.dataset ?? "custom";
    const databasePath = join(work, ARTIFACT_FILES.database);
    const counts = await buildDatabase(databasePath, stagingPath, { builtAt, dataset }, (step) => log(`database: ${step}`), signal, {
      ...(options.threadsFrom === undefined ? {} : { threadsFrom: options.threadsFrom }),
      progress,
    });
    await rm(stagingPath);
    throwIfInterrupted(signal);
    log(`database: ${counts.videos} videos, ${counts.transcripts} transcripts`);
    await buildTitleIndex(databasePath, join(work, ARTIFACT_FILES.titleIndex), signal);
    log("title index written");
    throwIfInterrupted(signal);
    const vectors = await embedStep(options.vectors, { databasePath, work, log, signal });
    throwIfInterrupted(signal);
    const manifest = await writeManifest(work, { dataset, builtAt, counts, liveSeq: options.liveSeq ?? 0, liveStoreId: options.liveStoreId, vectors });
    throwIfInterrupted(signal);
    await rename(work, options.outDir);
    forgetEmbedded(options.vectors);
    return {
      manifest,
      recordsRead: staged.records,
      invalidRecords: staged.invalid,
      seconds: (performance.now() - started) / 1000,
    };
  } catch (error) {
    await rm(work, { recursive: true, force: true });
    // A step stopped by the abort fails in its own way (a terminated worker, a closed iterator): it is the interruption.
    if (signal?.aborted && !(error instanceof BuildInterrupted)) {
      throw new BuildInterrupted(`The build was interrupted: ${String((signal.reason as Error | undefined)?.message ?? signal.reason)}`, { cause: error });
    }
    throw error;
  }
}
