/**
 * A small tmpfs of its own for tests of a full disk: real ENOSPC from the
 * kernel, at whatever write hits the limit. Mounting needs root (CI runs as
 * root); elsewhere `mountTmpfs` returns the reason instead and the test skips.
 */
import { execFileSync } from "node:child_process";
import { mkdtempSync, openSync, rmSync, writeSync, closeSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

export interface Tmpfs {
  dir: string;
  /** Writes a file until the filesystem is full. */
  fill(): void;
  /** Removes what `fill` wrote. */
  drain(): void;
  cleanup(): void;
}

export function mountTmpfs(bytes: number): Tmpfs | string {
  const dir = mkdtempSync(join(tmpdir(), "tmpfs-"));
  try {
    execFileSync("mount", ["-t", "tmpfs", "-o", `size=${bytes}`, "tmpfs", dir], { stdio: "pipe" });
  } catch (error) {
    rmSync(dir, { recursive: true, force: true });
    return `cannot mount a tmpfs (${String((error as { stderr?: Buffer }).stderr ?? error).trim().split("\n")[0]}): needs root`;
  }
  const filler = join(dir, "filler");
  return {
    dir,
    fill() {
      const fd = openSync(filler, "a");
      const block = Buffer.alloc(4096, 1);
      try {
        for (;;) writeSync(fd, block);
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== "ENOSPC") throw error;
      } finally {
        closeSync(fd);
      }
    },
    drain() {
      rmSync(filler, { force: true });
    },
    cleanup() {
      execFileSync("umount", ["-l", dir]);
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
