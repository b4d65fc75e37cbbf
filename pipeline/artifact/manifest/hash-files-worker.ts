/** The hashing thread (hash-worker.ts): hashes the files and answers once, a failure as a message. */
import { parentPort, workerData } from "node:worker_threads";
import { hashFiles, type HashReply, type HashWorkerData } from "./hash-worker.js";

const { paths } = workerData as HashWorkerData;
let reply: HashReply;
try {
  reply = { hashes: hashFiles(paths) };
} catch (error) {
  reply = { error: error instanceof Error ? error.message : String(error) };
}
parentPort!.postMessage(reply);
