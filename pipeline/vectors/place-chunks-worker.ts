/**
 * A thread placing one id range of the staged chunks in lists
 * (place-chunks.ts): progress messages, then the lists, or the failure said
 * in a message (an error thrown across threads can lose its text).
 */
import Database from "better-sqlite3";
import { parentPort, workerData } from "node:worker_threads";
import { placeRange, type PlaceReply, type PlaceWorkerData } from "./place-chunks.js";

const { path, firstId, lastId, centroids } = workerData as PlaceWorkerData;
const post = (reply: PlaceReply, transfer: ArrayBuffer[] = []) => parentPort!.postMessage(reply, transfer);
try {
  const db = new Database(path, { readonly: true, fileMustExist: true });
  const lists = placeRange(db, firstId, lastId, centroids, (done) => post({ done }));
  db.close();
  post({ lists }, [lists.buffer as ArrayBuffer]);
} catch (error) {
  post({ error: error instanceof Error ? error.message : String(error) });
}
