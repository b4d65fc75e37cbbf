/** The machine and the code a result belongs to: CPU, cores, RAM, load, commit. */
import { execFileSync } from "node:child_process";
import os from "node:os";

export interface MachineInfo {
  cpu: string;
  cores: number;
  ramGiB: number;
  node: string;
  commit: string;
}

export function machineInfo(): MachineInfo {
  const cpus = os.cpus();
  return {
    cpu: cpus[0]?.model.trim() ?? "unknown",
    cores: cpus.length,
    ramGiB: Math.round((os.totalmem() / 2 ** 30) * 10) / 10,
    node: process.version,
    commit: gitCommitOf(),
  };
}

/** The short commit of the checkout at `cwd` (default this process's), marked when it has uncommitted changes. */
export function gitCommitOf(cwd?: string): string {
  try {
    const sha = execFileSync("git", ["rev-parse", "--short", "HEAD"], { encoding: "utf8", cwd }).trim();
    // Only our own files' state matters for "dirty"; others commit in the same tree, so report it plainly.
    const dirty = execFileSync("git", ["status", "--porcelain", "--untracked-files=no"], { encoding: "utf8", cwd }).trim() !== "";
    return dirty ? `${sha} (+ uncommitted changes)` : sha;
  } catch {
    return "unknown";
  }
}

/** 1-minute load average, two decimals. */
export function loadAverage(): number {
  return Math.round((os.loadavg()[0] ?? 0) * 100) / 100;
}
