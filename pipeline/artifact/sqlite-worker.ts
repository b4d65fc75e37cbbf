/**
 * Worker threads that run SQLite: their code is plain CommonJS evaluated in
 * the worker, so it runs the same under tsx, vitest and node, and they load
 * the same better-sqlite3 as the thread that starts them.
 */
import { createRequire } from "node:module";
import { Worker } from "node:worker_threads";

/**
 * A worker thread running `source`, with `workerData.path` the database file,
 * `workerData.driver` better-sqlite3's entry point, and `workerData.tsx`
 * tsx's API, for a worker that loads one of this project's TypeScript
 * modules: `(await import(workerData.tsx)).tsImport(file, parentUrl)`. It is
 * tsx's ES module: its CommonJS one cannot load its own parts in a worker
 * (tsx 4).
 */
export function sqliteWorker(source: string, path: string, data: Record<string, unknown> = {}): Worker {
  const driver = createRequire(import.meta.url).resolve("better-sqlite3");
  const tsx = import.meta.resolve("tsx/esm/api");
  return new Worker(source, { eval: true, workerData: { ...data, path, driver, tsx } });
}
