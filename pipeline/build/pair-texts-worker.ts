/**
 * The thread that makes pair texts a batch ahead (pair-texts.ts): each
 * message asks for the next batch; an empty batch ends them. A failure is
 * said in a message, since an error thrown across threads can lose its text.
 */
import Database from "better-sqlite3";
import { parentPort, workerData } from "node:worker_threads";
import { pairTextReader, type PairRow, type PairTextsWorkerData } from "./pair-texts.js";

const { path, batchRows } = workerData as PairTextsWorkerData;
let next: (() => PairRow[]) | undefined;
parentPort!.on("message", () => {
  try {
    next ??= pairTextReader(new Database(path, { readonly: true, fileMustExist: true }), batchRows);
    parentPort!.postMessage({ rows: next() });
  } catch (error) {
    parentPort!.postMessage({ error: error instanceof Error ? error.message : String(error) });
  }
});
