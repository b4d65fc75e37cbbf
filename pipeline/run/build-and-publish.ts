/**
 * The last stage: every record in the state plus the transcripts the server
 * fetched live since the last build, built into a new artifact set and
 * published atomically (`current` swapped by a rename). Records stream from
 * SQLite one at a time, so memory does not grow with the dataset.
 */
import { existsSync } from "node:fs";
import { join } from "node:path";
import { LiveStore } from "../../server/data/live-store.js";
import { buildArtifacts } from "../build.js";
import type { Manifest } from "../contract.js";
import { newBuildDir, publishBuild } from "../publish.js";
import type { PipelineState } from "./open-state.js";

export const PIPELINE_DATASET = "pipeline";
export const LIVE_STORE_FILE = "live.db";

export interface BuildAndPublishOptions {
  dataDir: string;
  state: PipelineState;
  log: (message: string) => void;
  /** Aborting stops the build: nothing is published, BuildInterrupted is thrown. */
  signal?: AbortSignal;
}

export interface PublishedBuild {
  dir: string;
  counts: Manifest["counts"];
  liveSeq: number;
  /** Records read from the state and from the live store. */
  stateRecords: number;
  liveRecords: number;
  invalidRecords: number;
  seconds: number;
}

export async function buildAndPublish(options: BuildAndPublishOptions): Promise<PublishedBuild> {
  const livePath = join(options.dataDir, LIVE_STORE_FILE);
  // Opened only when the server made one: the pipeline never creates it.
  const live = existsSync(livePath) ? LiveStore.open(livePath) : undefined;
  try {
    const liveSeq = live?.maxSeq() ?? 0;
    let stateRecords = 0;
    let liveRecords = 0;
    let invalid = 0;
    function* records(): Generator<unknown> {
      for (const record of options.state.records()) {
        stateRecords++;
        yield record;
      }
      // After the state's records, so a live fetch (newer) wins the merge.
      if (!live) return;
      for (const record of live.records(0)) {
        liveRecords++;
        yield record;
      }
    }
    const dir = newBuildDir(options.dataDir);
    const result = await buildArtifacts({
      records: records(),
      outDir: dir,
      dataset: PIPELINE_DATASET,
      liveSeq,
      log: options.log,
      ...(options.signal ? { signal: options.signal } : {}),
      onInvalid: (error, index) => {
        invalid++;
        if (invalid <= 20) options.log(`record ${index} skipped: ${error.message.split("\n")[0]}`);
      },
    });
    await publishBuild(options.dataDir, dir);
    return {
      dir,
      counts: result.manifest.counts,
      liveSeq,
      stateRecords,
      liveRecords,
      invalidRecords: invalid,
      seconds: result.seconds,
    };
  } finally {
    live?.close();
  }
}
