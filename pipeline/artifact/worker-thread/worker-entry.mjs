// The first code of every worker thread started by ts-worker.ts: it loads the thread's own
// TypeScript module (workerData.workerModule) through tsx, which Node 20 cannot do by itself.
import { workerData } from "node:worker_threads";

const { tsImport } = await import("tsx/esm/api");
await tsImport(workerData.workerModule, import.meta.url);
