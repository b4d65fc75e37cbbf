/**
 * `--drop-cache`: the database file dropped from the operating system's page
 * cache before the server starts, so the start and the first search pass
 * read from the disk as after a reboot, not from what the build or an earlier
 * run left cached. GNU dd's `iflag=nocache` with `count=0` asks the kernel
 * (posix_fadvise DONTNEED) to drop the whole file's cached pages; dirty ones
 * are written first, so nothing is lost.
 */
import { execFileSync } from "node:child_process";

export function dropFromPageCache(path: string): void {
  execFileSync("dd", [`if=${path}`, "iflag=nocache", "count=0", "status=none"], { stdio: ["ignore", "ignore", "pipe"] });
}
