/**
 * The synthetic corpus as JSONL slices, written by several generator
 * processes in parallel (`pipeline/corpus/cli.ts`). A slice is written under
 * a temporary name and renamed when complete, so an existing `part-<i>.jsonl`
 * is always whole and is reused by the next run of the same size and seed.
 */
import { spawn } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { mkdir, rename, stat, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { REPO_ROOT, tsxArgs } from "./paths.js";

export interface CorpusFiles {
  parts: string[];
  bytes: number;
  /** Seconds spent generating in this run; undefined when reused. */
  seconds: number | undefined;
  reused: boolean;
}

interface CorpusMarker {
  size: number;
  seed: number;
  parts: number;
}

/** Small corpora in one slice: process start and chain training cost more than they save. */
export function sliceCount(size: number, jobs: number): number {
  return size < 5000 ? 1 : jobs;
}

export async function ensureCorpus(
  dir: string,
  options: { size: number; seed: number; jobs: number; log: (line: string) => void },
): Promise<CorpusFiles> {
  const slices = sliceCount(options.size, options.jobs);
  const parts = Array.from({ length: slices }, (_, i) => join(dir, `part-${i}.jsonl`));
  const markerPath = join(dir, "corpus.json");
  const marker: CorpusMarker = { size: options.size, seed: options.seed, parts: slices };
  const sameCorpus = existsSync(markerPath) && sameMarker(JSON.parse(readFileSync(markerPath, "utf8")) as CorpusMarker, marker);
  if (parts.every((p) => existsSync(p)) && (sameCorpus || !existsSync(markerPath))) {
    await writeFile(markerPath, JSON.stringify(marker) + "\n");
    return { parts, bytes: await totalBytes(parts), seconds: undefined, reused: true };
  }
  if (existsSync(markerPath) && !sameCorpus) {
    throw new Error(`${dir} holds another corpus (${readFileSync(markerPath, "utf8").trim()}); pick another --out`);
  }
  await mkdir(dir, { recursive: true });
  await writeFile(markerPath, JSON.stringify(marker) + "\n");
  const started = performance.now();
  options.log(`generating ${options.size} videos in ${slices} slice(s)`);
  await Promise.all(
    parts.map(async (part, i) => {
      if (existsSync(part)) return;
      const from = Math.floor((options.size * i) / slices);
      const to = Math.floor((options.size * (i + 1)) / slices);
      const args = ["--videos", String(options.size), "--seed", String(options.seed), "--from", String(from), "--to", String(to), "--out", `${part}.tmp`];
      await runChild(tsxArgs("pipeline/corpus/cli.ts", args), join(dir, `gen-${i}.log`));
      await rename(`${part}.tmp`, part);
    }),
  );
  const seconds = (performance.now() - started) / 1000;
  return { parts, bytes: await totalBytes(parts), seconds, reused: false };
}

function sameMarker(a: CorpusMarker, b: CorpusMarker): boolean {
  return a.size === b.size && a.seed === b.seed && a.parts === b.parts;
}

async function totalBytes(paths: string[]): Promise<number> {
  let sum = 0;
  for (const p of paths) sum += (await stat(p)).size;
  return sum;
}

async function runChild(args: string[], logPath: string): Promise<void> {
  const { openSync, closeSync } = await import("node:fs");
  const fd = openSync(logPath, "w");
  try {
    await new Promise<void>((resolve, reject) => {
      const child = spawn(process.execPath, args, { cwd: REPO_ROOT, stdio: ["ignore", fd, fd] });
      child.once("error", reject);
      child.once("exit", (code, signal) => (code === 0 ? resolve() : reject(new Error(`corpus generator exited with ${signal ?? code}; see ${logPath}`))));
    });
  } finally {
    closeSync(fd);
  }
}
