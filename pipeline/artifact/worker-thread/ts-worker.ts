/**
 * Worker threads whose code is a TypeScript module of this project, checked
 * by `tsc` like the rest: `tsWorker(new URL("./x-worker.ts", import.meta.url), data)`.
 * The thread starts in worker-entry.mjs, which loads that module through
 * tsx's `tsImport` (tsx is how this project runs), so the same code runs
 * under `npm start`, the pipeline and vitest alike. Node 20 cannot start a
 * thread on a `.ts` file itself, even with `--import tsx`.
 */
import { fileURLToPath } from "node:url";
import { Worker, type WorkerOptions } from "node:worker_threads";

/** The entry every such thread starts in. */
const ENTRY = new URL("./worker-entry.mjs", import.meta.url);

/** A worker thread running the TypeScript module at `module`, with `data` as its `workerData`. */
export function tsWorker(module: URL, data: object, options: Omit<WorkerOptions, "workerData" | "eval"> = {}): Worker {
  return new Worker(ENTRY, { ...options, workerData: { ...data, workerModule: fileURLToPath(module) } });
}
