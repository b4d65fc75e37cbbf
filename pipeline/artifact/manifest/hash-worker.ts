/**
 * SHA-256 of files on a worker thread, so a server hashing a new artifact set
 * (gigabytes at 500K transcripts) keeps its own thread for requests. The
 * thread (hash-files-worker.ts) runs this module's `hashFilesOverlapped`.
 */
import { createHash } from "node:crypto";
import { closeSync, openSync, readSync, statSync } from "node:fs";
import { open } from "node:fs/promises";
import { tsWorker } from "../worker-thread/index.js";

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

/**
 * The sha256 of each file, in order, each chunk hashed while the next is
 * read (on libuv's threads): the time of the larger of the two, where
 * `hashFiles` takes their sum. `chunkBytes` is for tests.
 */
export async function hashFilesOverlapped(paths: readonly string[], chunkBytes = CHUNK_BYTES): Promise<string[]> {
  const buffers = [Buffer.allocUnsafe(chunkBytes), Buffer.allocUnsafe(chunkBytes)] as const;
  const hashes: string[] = [];
  for (const path of paths) {
    const hash = createHash("sha256");
    const handle = await open(path, "r");
    try {
      let position = 0;
      let which = 0;
      let reading = handle.read(buffers[0], 0, chunkBytes, position);
      for (;;) {
        const { bytesRead, buffer } = await reading;
        if (bytesRead === 0) break;
        position += bytesRead;
        which ^= 1;
        reading = handle.read(buffers[which as 0 | 1], 0, chunkBytes, position);
        hash.update(buffer.subarray(0, bytesRead));
      }
    } finally {
      await handle.close();
    }
    hashes.push(hash.digest("hex"));
  }
  return hashes;
}

/** What the hashing thread (hash-files-worker.ts) is given. */
export interface HashWorkerData {
  paths: readonly string[];
}

/** The hashing thread's answer. */
export type HashReply = { hashes: string[] } | { error: string };

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
  const data: HashWorkerData = { paths };
  const worker = tsWorker(new URL("./hash-files-worker.ts", import.meta.url), data);
  return new Promise<string[]>((resolve, reject) => {
    worker.once("message", (reply: HashReply) => {
      if ("error" in reply) reject(new Error(`Hashing failed: ${reply.error}`));
      else resolve(reply.hashes);
    });
    worker.once("error", reject);
    worker.once("exit", (code) => reject(new Error(`The hashing worker exited with code ${code}`)));
  }).finally(() => void worker.terminate());
}
