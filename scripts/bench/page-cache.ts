/**
 * `--drop-cache`: the database file dropped from the operating system's page
 * cache before the server starts, so the start and the first search pass
 * read from the disk as after a reboot, not from what the build or an earlier
 * run left cached. GNU dd's `iflag=nocache` with `count=0` asks the kernel
 * (posix_fadvise DONTNEED) to drop the whole file's cached pages; dirty ones
 * are written first, so nothing is lost.
 */
import { execFileSync } from "node:child_process";
import { closeSync, openSync, readSync } from "node:fs";

export function dropFromPageCache(path: string): void {
  execFileSync("dd", [`if=${path}`, "iflag=nocache", "count=0", "status=none"], { stdio: ["ignore", "ignore", "pipe"] });
}

/**
 * Reads the whole file once, in large sequential reads, so the operating
 * system's cache holds it (as far as memory allows): for phases that measure
 * the CPU (WORKERS=1 against 2), not the disk. Returns the seconds it took.
 */
export function readIntoPageCache(path: string): number {
  const started = performance.now();
  const fd = openSync(path, "r");
  try {
    const buffer = Buffer.allocUnsafe(8 * 2 ** 20);
    while (readSync(fd, buffer, 0, buffer.length, null) > 0);
  } finally {
    closeSync(fd);
  }
  return (performance.now() - started) / 1000;
}
