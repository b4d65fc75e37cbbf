/**
 * The last stage, under the run lock: the live store's records are folded
 * into the pipeline state (so every later build holds them too), the state
 * is built into a new artifact set, checked against the served one, and
 * published atomically (`current` swapped by a rename). Records stream from
 * SQLite one at a time, so memory does not grow with the dataset.
 *
 * With DATABASE_URL the shared live store in PostgreSQL is folded in too
 * (the set's watermark is then that store's id and highest number read), and
 * once the set is published its rows that every set in `builds/` holds are
 * deleted there.
 */
import { realpathSync } from "node:fs";
import { rm } from "node:fs/promises";
import { basename } from "node:path";
import { buildArtifacts } from "./build-artifacts.js";
import type { Manifest } from "../artifact/contract/index.js";
import { dataDirLayout } from "../artifact/layout/index.js";
import { connectSharedLiveStore, openLiveSnapshot, sharedMaxSeq, sharedRecords, trimmableThrough, trimSharedRecords } from "../artifact/live-store/index.js";
import { readManifest } from "../artifact/manifest/index.js";
import { throwIfInterrupted } from "../command/interrupt.js";
import { newBuildDir, publishBuild } from "../publish/publish.js";
import type { ImportStaging } from "../state/import-staging.js";
import type { PipelineState } from "../state/open-state.js";
import { checkPublish } from "../publish/publish-guard.js";
import type { EmbedderSettings } from "../embeddings/create-embedder.js";
import { vectorsOption } from "../vectors/vectors-option.js";

export const PIPELINE_DATASET = "pipeline";

export interface BuildAndPublishOptions {
  dataDir: string;
  state: PipelineState;
  log: (message: string) => void;
  /** Name recorded in the manifest. Default "pipeline". */
  dataset?: string;
  /** Publish even a set that drops most of what is served (publish-guard.ts). */
  force?: boolean;
  /** Aborting stops the build: nothing is published, BuildInterrupted is thrown. */
  signal?: AbortSignal;
  /** PostgreSQL holding the shared live store: folded in, and trimmed after the publish. */
  databaseUrl?: string;
  /** An import staged beside the state: built with it, and folded into the state once the set is published (import-staging.ts). */
  staging?: ImportStaging;
  /** The embedder settings (EMBEDDER, EMBEDDINGS_*): with one configured the set gets vectors for search by meaning. Default: none, skipped. */
  embedding?: EmbedderSettings;
}

export interface PublishedBuild {
  dir: string;
  counts: Manifest["counts"];
  liveSeq: number;
  /** Records built (the state's, the live store's among them). */
  stateRecords: number;
  /** Live-store records folded into the state for this build. */
  liveRecords: number;
  /** Rows of the shared live store deleted after the publish (DATABASE_URL). */
  sharedTrimmed: number;
  invalidRecords: number;
  seconds: number;
}

/** Builds and publishes; undefined when there is nothing to build (no record in the state or the live store). */
export async function buildAndPublish(options: BuildAndPublishOptions): Promise<PublishedBuild | undefined> {
  if (options.databaseUrl === undefined) return buildAndPublishFrom(options, undefined);
  const shared = await connectSharedLiveStore(options.databaseUrl, `transcript-pipeline pid ${process.pid}`);
  try {
    return await buildAndPublishFrom(options, shared);
  } finally {
    await shared.client.end().catch(() => undefined);
  }
}

type SharedConnection = Awaited<ReturnType<typeof connectSharedLiveStore>>;

async function buildAndPublishFrom(options: BuildAndPublishOptions, shared: SharedConnection | undefined): Promise<PublishedBuild | undefined> {
  const { state, log } = options;
  // Folded first and durably: once the server trims its live store, the state is where these records live.
  const live = openLiveSnapshot(options.dataDir);
  let liveSeq = 0;
  let liveStoreId: string | undefined;
  let liveRecords = 0;
  try {
    if (live) {
      liveSeq = live.maxSeq;
      liveStoreId = live.storeId;
      liveRecords = state.absorb(live.records(liveSeq));
      if (liveRecords > 0) log(`folded ${liveRecords} live-fetched records (through #${liveSeq}) into the pipeline state`);
    }
  } finally {
    live?.close();
  }
  if (shared) {
    // Read through one high mark: rows committed meanwhile wait for the next build (the watermark says so).
    const through = await sharedMaxSeq(shared.client);
    let folded = 0;
    for (let after = 0; ; ) {
      const rows = await sharedRecords(shared.client, after, through);
      if (rows.length === 0) break;
      folded += state.absorb(rows);
      after = rows.at(-1)!.seq;
    }
    if (folded > 0) log(`folded ${folded} records of the shared live store (through #${through}) into the pipeline state`);
    liveRecords += folded;
    liveSeq = through;
    liveStoreId = shared.storeId;
  }
  const staging = options.staging;
  const expectedRecords = staging ? staging.recordCount() : state.recordCount();
  if (expectedRecords === 0) return undefined;
  // After the live fold: the next run compares the state with this to find out whether anything is new.
  const generation = state.recordsGeneration();

  let stateRecords = 0;
  let invalid = 0;
  function* records(): Generator<unknown> {
    for (const record of staging ? staging.records() : state.records()) {
      stateRecords++;
      yield record;
    }
  }
  const dir = newBuildDir(options.dataDir);
  const result = await buildArtifacts({
    records: records(),
    outDir: dir,
    dataset: options.dataset ?? PIPELINE_DATASET,
    liveSeq,
    liveStoreId,
    log,
    expectedRecords,
    vectors: vectorsOption(options.dataDir, options.embedding),
    ...(options.signal ? { signal: options.signal } : {}),
    onInvalid: (error, index) => {
      invalid++;
      if (invalid <= 20) log(`record ${index} skipped: ${error.message.split("\n")[0]}`);
    },
  });
  try {
    checkPublish(options.dataDir, result.manifest, { force: options.force ?? false });
  } catch (error) {
    await rm(dir, { recursive: true, force: true });
    throw error;
  }
  // The last moment a stop still publishes nothing.
  try {
    throwIfInterrupted(options.signal);
  } catch (error) {
    await rm(dir, { recursive: true, force: true });
    throw error;
  }
  // Noted before the swap, so a process killed after it still has the import folded in (ImportStaging.settle).
  staging?.publishing(basename(dir));
  await publishBuild(options.dataDir, dir);
  const beforeFold = state.recordsGeneration();
  staging?.commit();
  // The import's fold is in the set just published: it is not "new" to the next run.
  state.markPublished({ build: basename(dir), generation: generation + state.recordsGeneration() - beforeFold });
  let sharedTrimmed = 0;
  if (shared) {
    // Only what every set kept here holds: a switch back to the previous set still finds the rest mirrored.
    sharedTrimmed = await trimSharedRecords(shared.client, trimmableThrough(options.dataDir, shared.storeId));
    if (sharedTrimmed > 0) log(`trimmed ${sharedTrimmed} records every published set holds from the shared live store`);
  }
  return {
    dir,
    counts: result.manifest.counts,
    liveSeq,
    stateRecords,
    liveRecords,
    sharedTrimmed,
    invalidRecords: invalid,
    seconds: result.seconds,
  };
}

/**
 * The build id of the published set when a build now would hold nothing new:
 * `current` is the set this state last published, no record was written to
 * the state since (no new or changed transcript, fetched or imported), and
 * the live store holds no record past that set's watermark. Otherwise (or
 * when anything cannot be read) undefined: build. View counts refreshed by
 * crawls alone are not "new"; they reach the set with the next build.
 */
export function unchangedPublishedSet(dataDir: string, state: PipelineState): string | undefined {
  const published = state.publishedBuild();
  if (published === undefined || state.recordsGeneration() !== published.generation) return undefined;
  let current: string;
  let manifest: Manifest;
  try {
    current = realpathSync(dataDirLayout(dataDir).current);
    manifest = readManifest(current);
  } catch {
    return undefined;
  }
  if (basename(current) !== published.build) return undefined;
  const live = openLiveSnapshot(dataDir);
  try {
    if (live !== undefined && live.maxSeq > 0 && (live.storeId !== manifest.liveStoreId || live.maxSeq > manifest.liveSeq)) return undefined;
  } finally {
    live?.close();
  }
  return published.build;
}

/** Whether the shared live store holds rows past the served set's watermark (then a build has something new). */
export async function sharedRecordsPending(databaseUrl: string, dataDir: string): Promise<boolean> {
  let manifest: Manifest;
  try {
    manifest = readManifest(realpathSync(dataDirLayout(dataDir).current));
  } catch {
    return true;
  }
  const shared = await connectSharedLiveStore(databaseUrl, `transcript-pipeline pid ${process.pid}`);
  try {
    const max = await sharedMaxSeq(shared.client);
    return max > 0 && (manifest.liveStoreId !== shared.storeId || max > manifest.liveSeq);
  } finally {
    await shared.client.end().catch(() => undefined);
  }
}
