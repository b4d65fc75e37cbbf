/**
 * The layout of DATA_DIR, the one folder the server, the pipeline and the
 * keys CLI share. Every path into it comes from here, so the three can never
 * disagree on where a file is.
 *
 *   current          symlink to the served build (builds/<id>), swapped by an atomic rename
 *   builds/<id>/     published artifact sets; `.<id>.partial-<pid>-<ms>/` while one is built or installed
 *   live.db          the server's live store (transcripts fetched on demand)
 *   keys.db          API keys
 *   verified.json    this machine's record of the sets whose hashes were checked
 *   exits.db         the YouTube exits' state, shared by the server and the pipeline on this host
 *   pipeline/        the pipeline's state.db, run.lock, last-run.json and vector-cache.db (vectors a build embedded that no published set holds yet)
 */
import { join } from "node:path";

/** The names of DATA_DIR's entries, for code that compares a name (a watcher) or builds a relative link. */
export const DATA_DIR_NAMES = {
  current: "current",
  builds: "builds",
  liveStore: "live.db",
  keys: "keys.db",
  verified: "verified.json",
  exits: "exits.db",
  pipeline: "pipeline",
  /** In `pipeline/`. */
  state: "state.db",
  /** In `pipeline/`. */
  lock: "run.lock",
  /** In `pipeline/`. */
  lastRun: "last-run.json",
  /** In `pipeline/`. */
  vectorCache: "vector-cache.db",
} as const;

export interface DataDirLayout {
  root: string;
  current: string;
  builds: string;
  liveStore: string;
  keys: string;
  verified: string;
  exits: string;
  pipeline: string;
  state: string;
  lock: string;
  lastRun: string;
  vectorCache: string;
}

/** Every path of the DATA_DIR `dataDir`. */
export function dataDirLayout(dataDir: string): DataDirLayout {
  const pipeline = join(dataDir, DATA_DIR_NAMES.pipeline);
  return {
    root: dataDir,
    current: join(dataDir, DATA_DIR_NAMES.current),
    builds: join(dataDir, DATA_DIR_NAMES.builds),
    liveStore: join(dataDir, DATA_DIR_NAMES.liveStore),
    keys: join(dataDir, DATA_DIR_NAMES.keys),
    verified: join(dataDir, DATA_DIR_NAMES.verified),
    exits: join(dataDir, DATA_DIR_NAMES.exits),
    pipeline,
    state: join(pipeline, DATA_DIR_NAMES.state),
    lock: join(pipeline, DATA_DIR_NAMES.lock),
    lastRun: join(pipeline, DATA_DIR_NAMES.lastRun),
    vectorCache: join(pipeline, DATA_DIR_NAMES.vectorCache),
  };
}
