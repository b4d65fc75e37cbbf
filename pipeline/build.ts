/**
 * The build stage: VideoRecords (JSONL from the fetch stage, the live store,
 * or a generator) → a complete artifact set in `outDir`.
 *
 * Everything is written to a temporary sibling directory that is renamed to
 * `outDir` only when complete, so no reader ever sees half a build.
 */
import { mkdir, rename, rm } from "node:fs/promises";
import { basename, dirname, join } from "node:path";
import { ARTIFACT_FILES, type Manifest } from "./contract.js";
import { buildDatabase } from "./build/build-database.js";
import { buildTitleIndex } from "./build/build-title-index.js";
import { writeManifest } from "./build/manifest.js";
import { stageRecords, type RecordSource } from "./build/stage-records.js";

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
  /** The live store those records came from (recorded in the manifest beside `liveSeq`). */
  liveStoreId?: string | undefined;
  /** Progress lines for operators (default: silent). */
  log?: (message: string) => void;
}

export interface BuildResult {
  manifest: Manifest;
  recordsRead: number;
  invalidRecords: number;
  seconds: number;
}

export async function buildArtifacts(options: BuildOptions): Promise<BuildResult> {
  const started = performance.now();
  const log = options.log ?? (() => {});
  const parent = dirname(options.outDir);
  await mkdir(parent, { recursive: true });
  const work = join(parent, `.${basename(options.outDir)}.partial-${process.pid}-${Date.now()}`);
  await mkdir(work);
  try {
    const stagingPath = join(work, "staging.db");
    const staged = await stageRecords(stagingPath, options.records, options.onInvalid);
    log(`staged ${staged.records} records (${staged.invalid} invalid)`);
    const builtAt = new Date().toISOString();
    const dataset = options.dataset ?? "custom";
    const databasePath = join(work, ARTIFACT_FILES.database);
    const counts = await buildDatabase(databasePath, stagingPath, { builtAt, dataset }, (step) => log(`database: ${step}`));
    await rm(stagingPath);
    log(`database: ${counts.videos} videos, ${counts.transcripts} transcripts`);
    await buildTitleIndex(databasePath, join(work, ARTIFACT_FILES.titleIndex));
    log("title index written");
    const manifest = await writeManifest(work, { dataset, builtAt, counts, liveSeq: options.liveSeq ?? 0, liveStoreId: options.liveStoreId });
    await rename(work, options.outDir);
    return {
      manifest,
      recordsRead: staged.records,
      invalidRecords: staged.invalid,
      seconds: (performance.now() - started) / 1000,
    };
  } catch (error) {
    await rm(work, { recursive: true, force: true });
    throw error;
  }
}
