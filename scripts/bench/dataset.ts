/**
 * Phase `dataset`: the bench's artifact set exported as Parquet and as JSON
 * Lines (`npm run pipeline -- export`), and the Parquet export built and
 * published again (`npm run pipeline -- build --input`) into a scratch
 * DATA_DIR, never the bench's own. Each command is a child process: its wall
 * time, and its peak RSS as the kernel counts it (getrusage ru_maxrss,
 * written at exit by peak-rss.mjs, worker threads included). The scratch
 * folders are removed afterwards, whatever happened.
 */
import { spawn } from "node:child_process";
import { closeSync, existsSync, mkdirSync, openSync, readdirSync, readFileSync, rmSync, statSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { ARTIFACT_FILES } from "../../pipeline/artifact/contract/contract.js";
import { dataDirLayout } from "../../pipeline/artifact/layout/layout.js";
import { REPO_ROOT } from "./paths.js";

export interface CommandFigures {
  /** The command as an operator types it. */
  command: string;
  seconds: number;
  peakRssBytes: number;
}

export interface DatasetFigures {
  parquet: CommandFigures & { bytes: number; files: number };
  jsonl: CommandFigures & { bytes: number; files: number };
  build: CommandFigures & { databaseBytes: number };
  /** The bench set's transcripts.db, the one exported. */
  sourceDatabaseBytes: number;
}

/** Runs `npm run pipeline -- ARGS` as `node --import tsx pipeline/cli.ts ARGS`, so the child is the pipeline itself. */
export async function timePipelineCommand(args: string[], options: { dataDir: string; logPath: string; peakFile: string }): Promise<CommandFigures> {
  rmSync(options.peakFile, { force: true });
  const env: NodeJS.ProcessEnv = { ...process.env, DATA_DIR: options.dataDir, BENCH_PEAK_RSS_FILE: options.peakFile };
  // The bench's set only: never a shared PostgreSQL's live store or lock.
  delete env.DATABASE_URL;
  const fd = openSync(options.logPath, "a");
  const started = performance.now();
  const child = spawn(process.execPath, ["--import", "tsx", "--import", pathToFileURL(join(REPO_ROOT, "scripts/bench/peak-rss.mjs")).href, join(REPO_ROOT, "pipeline/cli.ts"), ...args], {
    cwd: REPO_ROOT,
    stdio: ["ignore", fd, fd],
    env,
  });
  closeSync(fd);
  const code = await new Promise<number | null>((resolve, reject) => {
    child.once("error", reject);
    child.once("exit", (exitCode) => resolve(exitCode));
  });
  const seconds = (performance.now() - started) / 1000;
  const command = `npm run pipeline -- ${args.join(" ")}`;
  if (code !== 0) throw new Error(`${command} exited ${code}; see ${options.logPath}`);
  const peakRssBytes = existsSync(options.peakFile) ? Number(readFileSync(options.peakFile, "utf8")) : Number.NaN;
  return { command, seconds, peakRssBytes };
}

/** Bytes and count of the files under a folder, recursively. */
export function folderBytes(dir: string, match: (name: string) => boolean = () => true): { bytes: number; files: number } {
  let bytes = 0;
  let files = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true, recursive: true })) {
    if (!entry.isFile() || !match(entry.name)) continue;
    bytes += statSync(join(entry.parentPath, entry.name)).size;
    files++;
  }
  return { bytes, files };
}

export async function measureDataset(options: { dataDir: string; scratch: string; logsDir: string; log: (line: string) => void }): Promise<DatasetFigures> {
  const { scratch, log } = options;
  rmSync(scratch, { recursive: true, force: true });
  mkdirSync(scratch, { recursive: true });
  const parquetDir = join(scratch, "export-parquet");
  const jsonlDir = join(scratch, "export-jsonl");
  const rebuiltDataDir = join(scratch, "data");
  mkdirSync(rebuiltDataDir);
  const run = (args: string[], dataDir: string, name: string) =>
    timePipelineCommand(args, { dataDir, logPath: join(options.logsDir, `dataset-${name}.log`), peakFile: join(scratch, `${name}.peak-rss`) });
  try {
    const parquetRun = await run(["export", "--format", "parquet", "--out", parquetDir], options.dataDir, "export-parquet");
    const parquet = { ...parquetRun, ...folderBytes(parquetDir, (name) => name.endsWith(".parquet")) };
    log(`dataset: Parquet export in ${parquet.seconds.toFixed(1)} s, ${(parquet.bytes / 2 ** 20).toFixed(0)} MiB`);
    const jsonlRun = await run(["export", "--format", "jsonl", "--out", jsonlDir], options.dataDir, "export-jsonl");
    const jsonl = { ...jsonlRun, ...folderBytes(jsonlDir, (name) => name.endsWith(".jsonl.gz")) };
    log(`dataset: JSON Lines export in ${jsonl.seconds.toFixed(1)} s, ${(jsonl.bytes / 2 ** 20).toFixed(0)} MiB`);
    const buildRun = await run(["build", "--input", parquetDir], rebuiltDataDir, "build");
    const build = { ...buildRun, databaseBytes: statSync(join(dataDirLayout(rebuiltDataDir).current, ARTIFACT_FILES.database)).size };
    log(`dataset: build --input in ${build.seconds.toFixed(1)} s`);
    const sourceDatabaseBytes = statSync(join(dataDirLayout(options.dataDir).current, ARTIFACT_FILES.database)).size;
    return { parquet, jsonl, build, sourceDatabaseBytes };
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
}
