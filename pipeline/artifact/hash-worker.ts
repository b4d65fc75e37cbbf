/**
 * SHA-256 of files on a worker thread, so a server hashing a new artifact set
 * (gigabytes at 500K transcripts) keeps its own thread for requests. The
 * worker is a small CommonJS bootstrap evaluated in the thread that loads this
 * module through tsx's `tsImport` (as pair-texts.ts does) and runs `hashFiles`.
 */
import { createHash } from "node:crypto";
import { closeSync, openSync, readSync, statSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { Worker } from "node:worker_threads";

/** Bytes read at a time: large reads keep the hash's share of the time high. */
const CHUNK_BYTES = 4 << 20;

/** The sha256 of each file, in order, read synchronously (meant for a worker thread). */
export function hashFiles(paths: readonly string[]): string[] {
  const buffer = Buffer.allocUnsafe(CHUNK_BYTES);
  return paths.map((path) => {
    const hash = createHash("sha256");
    const fd = openSync(path, "r");
    try {
      for (;;) {
        const read = readSync(fd, buffer, 0, CHUNK_BYTES, null);
        if (read === 0) break;
        hash.update(buffer.subarray(0, read));
      }
    } finally {
      closeSync(fd);
    }
    return hash.digest("hex");
  });
}

const WORKER_SOURCE = `
const { parentPort, workerData } = require("node:worker_threads");
(async () => {
  const { tsImport } = await import(workerData.tsx);
  const { hashFiles } = await tsImport(workerData.module, workerData.parent);
  parentPort.postMessage({ hashes: hashFiles(workerData.paths) });
})().catch((error) => parentPort.postMessage({ error: String((error && error.message) || error) }));
`;

/**
 * Files up to this many bytes in all are hashed on the calling thread: that
 * takes less time than starting a worker (which loads tsx), and blocks the
 * event loop no longer than one chunk of a large set does.
 */
export const INLINE_HASH_BYTES = 8 << 20;

/** The sha256 of each file, computed on a worker thread started for this call (small sets: on this thread). */
export function hashFilesInWorker(paths: readonly string[]): Promise<string[]> {
  const total = paths.reduce((sum, path) => sum + statSync(path).size, 0);
  if (total <= INLINE_HASH_BYTES) return Promise.resolve().then(() => hashFiles(paths));
  const worker = new Worker(WORKER_SOURCE, {
    eval: true,
    workerData: {
      paths,
      tsx: import.meta.resolve("tsx/esm/api"),
      module: fileURLToPath(import.meta.url),
      parent: import.meta.url,
    },
  });
  return new Promise<string[]>((resolve, reject) => {
    worker.once("message", (reply: { hashes: string[] } | { error: string }) => {
      if ("error" in reply) reject(new Error(`Hashing failed: ${reply.error}`));
      else resolve(reply.hashes);
    });
    worker.once("error", reject);
    worker.once("exit", (code) => reject(new Error(`The hashing worker exited with code ${code}`)));
  }).finally(() => void worker.terminate());
}
