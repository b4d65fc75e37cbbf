/**
 * Reads an artifact set's files through once, in the background, so that
 * the operating system's page cache holds them. After a cold start (a new
 * machine, a reboot, a dropped cache) on a set verified earlier, a search's
 * first reads of transcript text would otherwise each wait on the disk; a
 * start that hashes the set has read it through already. Done only where
 * the files fit in the memory available (a container's limit too) beside
 * what the server itself is to take, so it does not crowd the server; one
 * read at a time on libuv's thread pool, into one buffer, so it takes
 * little of a core and no process memory.
 */
import { open } from "node:fs/promises";
import { freemem, totalmem } from "node:os";
import { performance } from "node:perf_hooks";

/** Bytes per read. */
const CHUNK_BYTES = 8 * 2 ** 20;

export interface Preread {
  bytes: number;
  ms: number;
  /** "stopped": the signal came before every file was read. */
  outcome: "complete" | "stopped";
}

/** Whether files of `bytes` in all fit in the memory available (`availableMemory`), less `reservedBytes` (the server's own). */
export function prereadFits(bytes: number, reservedBytes: number, availableBytes = availableMemory()): boolean {
  return bytes + reservedBytes <= availableBytes;
}

/**
 * The memory this process may still fill: what the system says is available, and within a control group's
 * limit (a container's, which the page cache this process reads is charged to) what the limit leaves beside
 * its resident memory, whichever is less. Node reports no limit as a number above the machine's memory.
 */
export function availableMemory(
  system = { free: freemem(), total: totalmem() },
  limit = process.constrainedMemory?.() ?? 0,
  residentBytes = process.memoryUsage.rss(),
): number {
  if (limit <= 0 || limit >= system.total) return system.free;
  return Math.max(0, Math.min(system.free, limit - residentBytes));
}

/** Reads `paths` through, one after another, `chunkBytes` at a time, until the end or until `signal` aborts. */
export async function prereadFiles(paths: readonly string[], signal: AbortSignal, chunkBytes = CHUNK_BYTES): Promise<Preread> {
  const started = performance.now();
  const buffer = Buffer.allocUnsafe(chunkBytes);
  let bytes = 0;
  for (const path of paths) {
    const file = await open(path, "r");
    try {
      for (;;) {
        if (signal.aborted) return { bytes, ms: performance.now() - started, outcome: "stopped" };
        const { bytesRead } = await file.read(buffer, 0, chunkBytes, null);
        if (bytesRead === 0) break;
        bytes += bytesRead;
      }
    } finally {
      await file.close();
    }
  }
  return { bytes, ms: performance.now() - started, outcome: "complete" };
}
