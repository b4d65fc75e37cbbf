/** The hashing thread (hash-worker.ts): hashes the files and answers once, a failure as a message. */
import { parentPort, workerData } from "node:worker_threads";
import { hashFilesOverlapped, type HashReply, type HashWorkerData } from "./hash-worker.js";

const { paths } = workerData as HashWorkerData;
const reply: HashReply = await hashFilesOverlapped(paths).then(
  (hashes) => ({ hashes }),
  (error: unknown) => ({ error: error instanceof Error ? error.message : String(error) }),
);
parentPort!.postMessage(reply);
