/** Where things are: the repository root (scripts run from any directory) and the bench working directory layout. */
import { join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

export const REPO_ROOT = resolve(fileURLToPath(new URL("../..", import.meta.url)));

export interface BenchLayout {
  root: string;
  corpusDir: string;
  /** DATA_DIR of the server: builds/, current, keys.db. */
  dataDir: string;
  /** Phase-1 figures of the build that made `dataDir/current`, kept so a reused set still reports them. */
  buildRecord: string;
  results: string;
  logs: string;
}

export function benchLayout(out: string): BenchLayout {
  const root = resolve(out);
  return {
    root,
    corpusDir: join(root, "corpus"),
    dataDir: join(root, "data"),
    buildRecord: join(root, "build.json"),
    results: join(root, "results.json"),
    logs: join(root, "logs"),
  };
}

/** Runs a TypeScript entry point of this repository in a child node process (tsx loader), so its pid is the process measured. */
export function tsxArgs(entry: string, args: string[] = []): string[] {
  return ["--import", "tsx", join(REPO_ROOT, entry), ...args];
}
