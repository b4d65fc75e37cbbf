/**
 * The thread that builds the transcript index into a file of its own
 * (transcript-index.ts): it reports progress and each step as it ends, and a failure in
 * a message, since an error thrown across threads can lose its text.
 */
import Database from "better-sqlite3";
import { parentPort, workerData } from "node:worker_threads";
import { writeTranscriptIndex, type TranscriptIndexWorkerData } from "./transcript-index.js";

const { path, source, pragmas } = workerData as TranscriptIndexWorkerData;
let db: Database.Database | undefined;
try {
  db = new Database(path);
  writeTranscriptIndex(
    db,
    source,
    pragmas,
    (step, seconds) => parentPort!.postMessage({ step, seconds }),
    (done, total) => parentPort!.postMessage({ done, total }),
  );
} catch (error) {
  parentPort!.postMessage({ error: error instanceof Error ? error.message : String(error) });
} finally {
  db?.close();
}
