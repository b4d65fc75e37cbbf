/** Temp DATA_DIRs, a silent progress reporter and a runPipeline call with test defaults. */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { PassThrough } from "node:stream";
import Database from "better-sqlite3";
import { createProgress } from "../../../pipeline/run/report-progress.js";
import { runPipeline, type RunOptions, type RunSummary } from "../../../pipeline/run/run-pipeline.js";

export function tempDataDir(): { dir: string; cleanup(): void } {
  const dir = mkdtempSync(join(tmpdir(), "pipeline-run-"));
  return { dir, cleanup: () => rmSync(dir, { recursive: true, force: true }) };
}

/** Progress written to a buffer (plain mode), so tests can read the lines. */
export function bufferedProgress(): { progress: RunOptions["progress"]; text(): string } {
  const stream = new PassThrough();
  const chunks: string[] = [];
  stream.on("data", (chunk: Buffer) => chunks.push(chunk.toString("utf8")));
  return { progress: createProgress({ stream, tty: false, intervalMs: 60_000 }), text: () => chunks.join("") };
}

export function run(options: Omit<RunOptions, "progress"> & Partial<Pick<RunOptions, "progress">>): Promise<RunSummary> {
  return runPipeline({ progress: bufferedProgress().progress, retryBaseMs: 1, timeoutMs: 5000, ...options });
}

export function stateRows<T>(dataDir: string, sql: string, ...params: unknown[]): T[] {
  const db = new Database(join(dataDir, "pipeline", "state.db"), { readonly: true });
  try {
    return db.prepare(sql).all(...params) as T[];
  } finally {
    db.close();
  }
}
