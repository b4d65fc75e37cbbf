/** The machine and the code a result belongs to: CPU, cores, RAM, load, commit, and whether it takes idle pages of its cache back. */
import { execFileSync } from "node:child_process";
import { existsSync, readFileSync, readdirSync } from "node:fs";
import { join } from "node:path";
import os from "node:os";

export interface MachineInfo {
  cpu: string;
  cores: number;
  ramGiB: number;
  node: string;
  commit: string;
  /**
   * The kernel's proactive reclaim where it runs (DAMON `pageout` schemes):
   * pages idle that long leave memory even with RAM free, so a set read into
   * the page cache a minute before a pass is read from disk again. Absent
   * where no such scheme runs, and in results written before it was recorded.
   */
  reclaim?: string[];
}

export function machineInfo(): MachineInfo {
  const cpus = os.cpus();
  return {
    cpu: cpus[0]?.model.trim() ?? "unknown",
    cores: cpus.length,
    ramGiB: Math.round((os.totalmem() / 2 ** 30) * 10) / 10,
    node: process.version,
    commit: gitCommitOf(),
    ...withReclaim(damonPageouts()),
  };
}

function withReclaim(reclaim: string[]): { reclaim?: string[] } {
  return reclaim.length > 0 ? { reclaim } : {};
}

/**
 * The DAMON `pageout` schemes of running kdamonds under `root` (the sysfs
 * admin directory), each as "pageout of <pages> idle ≥ N s": the minimum age
 * is counted in aggregation intervals. Empty where DAMON is absent or off.
 */
export function damonPageouts(root = "/sys/kernel/mm/damon/admin"): string[] {
  const read = (...parts: string[]) => sysfsRead(root, ...parts);
  const entries = (...parts: string[]) => numberedEntries(root, ...parts);
  const found: string[] = [];
  for (const kdamond of entries("kdamonds")) {
    try {
      if (read("kdamonds", kdamond, "state") !== "on") continue;
      for (const context of entries("kdamonds", kdamond, "contexts")) {
        const at = ["kdamonds", kdamond, "contexts", context];
        const aggregationUs = Number(read(...at, "monitoring_attrs", "intervals", "aggr_us"));
        for (const scheme of entries(...at, "schemes")) {
          const s = [...at, "schemes", scheme];
          if (read(...s, "action") !== "pageout") continue;
          const idleSeconds = (Number(read(...s, "access_pattern", "age", "min")) * aggregationUs) / 1e6;
          found.push(`pageout of ${damonPages(root, s)} idle ≥ ${Math.round(idleSeconds)} s`);
        }
      }
    } catch {
      // A kdamond whose files do not read as expected (another kernel's layout) is left out.
    }
  }
  return found;
}

/** What a scheme's filters let through, e.g. "unmapped pages (not anon)" for anon rejected and unmapped allowed. */
function damonPages(root: string, scheme: string[]): string {
  const allowed: string[] = [];
  const rejected: string[] = [];
  for (const dir of ["ops_filters", "filters"]) {
    for (const name of numberedEntries(root, ...scheme, dir)) {
      const read = (file: string) => sysfsRead(root, ...scheme, dir, name, file);
      const matching = read("matching") === "Y";
      // Kernels before `allow` only had filters that reject what they match.
      const allow = existsSync(join(root, ...scheme, dir, name, "allow")) && read("allow") === "Y";
      (allow === matching ? allowed : rejected).push(read("type"));
    }
  }
  const pages = allowed.length > 0 ? `${allowed.join(" or ")} pages` : "pages";
  return rejected.length > 0 ? `${pages} (not ${rejected.join(" or ")})` : pages;
}

function sysfsRead(root: string, ...parts: string[]): string {
  return readFileSync(join(root, ...parts), "utf8").trim();
}

/** The numbered entries of a sysfs directory (kdamonds, contexts, schemes, filters); none where it is absent. */
function numberedEntries(root: string, ...parts: string[]): string[] {
  try {
    return readdirSync(join(root, ...parts)).filter((name) => /^\d+$/.test(name));
  } catch {
    return [];
  }
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
